import { holdsTeamRole, type Actor, type Role, type TeamRole } from '../core/actor.js';
import { GatewayError } from '../errors/gateway-error.js';

/** 403 `permission_denied`, naming the role that would have been let through (SPEC §15). */
export function permissionDenied(needed: readonly Role[], what: string): GatewayError {
  const roles = needed.map((role) => `"${role}"`);
  const needs = roles.length === 1 ? `the role ${roles[0]}` : `one of the roles ${roles.slice(0, -1).join(', ')} or ${roles.at(-1)}`;
  return new GatewayError(`Permission denied: ${what} needs ${needs}.`, { status: 403, code: 'permission_denied', type: 'permission_error' });
}

/** Throws 403 unless the actor holds one of `roles` for the team (null: things of no team, which only global roles reach). */
export function requireTeamRole(actor: Actor, teamId: string | null, roles: readonly Role[], what: string): void {
  if (!holdsTeamRole(actor, teamId, roles)) {
    throw permissionDenied(roles, teamId === null ? what : `${what} of team ${teamId}`);
  }
}

/** The teams whose things the actor may see; undefined: every team's and those of none (a global role). */
export function visibleTeams(actor: Actor): ReadonlySet<string> | undefined {
  if (actor.global !== null) return undefined;
  return new Set(actor.grants.map((grant) => grant.team));
}

/** The teams in which the actor holds `role`. */
export function teamsWhere(actor: Actor, role: TeamRole): string[] {
  return actor.grants.filter((grant) => grant.role === role).map((grant) => grant.team);
}
