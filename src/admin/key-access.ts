import { permissionDenied } from '../access/permission-denied.js';
import { holdsTeamRole, type Actor } from '../core/actor.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { CreateKeyRequest } from '../keys/create-key-body.js';
import type { NewKey, VirtualKey } from '../keys/virtual-key.js';
import { withinExplorationPolicy } from '../teams/exploration-key.js';
import type { Team } from '../teams/team.js';

/**
 * Which keys an actor may make, see, revoke and read the spend of (SPEC §15), once the door
 * (admin-rules.ts) has let its role in: an `admin` any; a `team_admin` its teams' keys; anyone
 * holding a role in a team (a `member` too) its own exploration keys there. An `auditor` reads
 * every key and changes none.
 */

/** The key to store for a create-key body, made within what the actor may do; a 400 or 403 otherwise. */
export async function keyToCreate(actor: Actor, asked: CreateKeyRequest, findTeam: (idOrName: string) => Promise<Team | undefined>, nowMs: number): Promise<NewKey> {
  const team = asked.team === null ? undefined : await findTeam(asked.team);
  if (asked.team !== null && !team) throw badTeam(`no team has the id or name "${asked.team}"`);
  const key: NewKey = { ...asked.key, teamId: team?.id ?? null };
  if (key.kind === 'exploration') {
    if (!team) throw badTeam("an exploration key belongs to a team: give the team's id or name");
    if (!holdsTeamRole(actor, team.id, ['team_admin', 'member'])) throw permissionDenied(['team_admin', 'member'], `making an exploration key in team ${team.name}`);
    return withinExplorationPolicy({ ...key, ownerId: actor.id }, team, nowMs);
  }
  if (actor.global === 'admin') return key;
  if (!team) throw badTeam('a key made by a team_admin belongs to one of its teams: give the team');
  if (!holdsTeamRole(actor, team.id, ['team_admin'])) throw permissionDenied(['admin', 'team_admin'], `making a service key in team ${team.name}`);
  return key;
}

/** The keys the actor may list: every key for `admin` and `auditor`. */
export function visibleKeys(actor: Actor, keys: readonly VirtualKey[]): VirtualKey[] {
  if (actor.global !== null) return [...keys];
  return keys.filter((key) => managesTeamKey(actor, key) || ownsKey(actor, key));
}

/** Revoking: 403 unless the actor is an `admin`, a `team_admin` of the key's team, or the owner of an exploration key. */
export function requireMayRevoke(actor: Actor, key: VirtualKey): void {
  if (actor.global === 'admin' || managesTeamKey(actor, key) || ownsKey(actor, key)) return;
  throw permissionDenied(['admin', 'team_admin'], `revoking key ${key.id}`);
}

/** Reading the spend: as revoking, and an `auditor` too. */
export function requireMaySeeSpend(actor: Actor, key: VirtualKey): void {
  if (holdsTeamRole(actor, key.teamId, ['auditor', 'team_admin']) || ownsKey(actor, key)) return;
  throw permissionDenied(['admin', 'auditor', 'team_admin'], `the spend of key ${key.id}`);
}

function managesTeamKey(actor: Actor, key: VirtualKey): boolean {
  return key.teamId !== null && actor.grants.some((grant) => grant.team === key.teamId && grant.role === 'team_admin');
}

function ownsKey(actor: Actor, key: VirtualKey): boolean {
  return key.kind === 'exploration' && key.ownerId === actor.id;
}

function badTeam(why: string): GatewayError {
  return new GatewayError(`Invalid request: team: ${why}.`, { status: 400, code: 'invalid_request_error', param: 'team' });
}
