import type { Actor, TeamGrant } from '../core/actor.js';
import type { AdminOidcConfig } from '../config/admin-oidc-schema.js';

/** What a person's role claim grants at this gateway. */
export interface MappedRoles {
  global: Actor['global'];
  grants: TeamGrant[];
}

/** A team of the store, found by id or name (`TeamStore.find`). */
export type FindTeam = (idOrName: string) => Promise<{ id: string } | undefined>;

/**
 * The role claim's values: a string or a list (its non-string entries ignored; some identity
 * providers send one group as a string); undefined when the claims do not hold it.
 */
export function roleClaimValues(claims: Readonly<Record<string, unknown>>, claim: string): string[] | undefined {
  if (!Object.hasOwn(claims, claim)) return undefined;
  const value = claims[claim];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return undefined;
}

/**
 * Maps each value through `admin.oidc.roles`: `admin` and `auditor` span every team (admin the
 * stronger), a team role is held in the team named, by id or name. A value the mapping does not
 * name, or naming a team the store does not have, grants nothing.
 */
export async function mapRoleClaim(values: readonly string[], roles: AdminOidcConfig['roles'], findTeam: FindTeam): Promise<MappedRoles> {
  let global: Actor['global'] = null;
  const grants: TeamGrant[] = [];
  for (const value of new Set(values)) {
    // Own entries only: a claim value such as "constructor" names nothing.
    if (!Object.hasOwn(roles, value)) continue;
    const mapped = roles[value]!;
    if (mapped === 'admin' || mapped === 'auditor') {
      if (global !== 'admin') global = mapped;
      continue;
    }
    const role = 'team_admin' in mapped ? 'team_admin' : 'member';
    const team = await findTeam('team_admin' in mapped ? mapped.team_admin : mapped.member);
    if (team && !grants.some((grant) => grant.team === team.id && grant.role === role)) grants.push({ team: team.id, role });
  }
  return { global, grants };
}
