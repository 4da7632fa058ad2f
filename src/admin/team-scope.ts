import { permissionDenied, visibleTeams } from '../access/permission-denied.js';
import type { Actor } from '../core/actor.js';
import { storeCall } from '../store/store-call.js';
import type { Team } from '../teams/team.js';
import { badParameter } from './bad-parameter.js';

/**
 * The teams whose requests a listing or a figure counts (team ids), or undefined for every
 * request: `admin` and `auditor` see everything unless `team=` narrows it; a `team_admin` or
 * `member` sees its teams' requests only, all of them without `team=`, and is refused (403)
 * another team's.
 */
export async function teamScope(actor: Actor, team: string | null, findTeam: (idOrName: string) => Promise<Team | undefined>): Promise<string[] | undefined> {
  const visible = visibleTeams(actor);
  if (team === null) return visible && [...visible];
  if (team === '') throw badParameter('team', 'Query parameter "team" is empty; give a team\'s id or name.');
  const found = await storeCall(findTeam(team));
  if (!found) throw badParameter('team', `Query parameter "team" names no team (got "${team}").`);
  if (visible && !visible.has(found.id)) throw permissionDenied(['auditor', 'team_admin', 'member'], `the requests of team ${found.name}`);
  return [found.id];
}
