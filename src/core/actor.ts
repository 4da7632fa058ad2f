/** The four roles of SPEC §15; `admin` and `auditor` span every team, the other two one team each. */
export const ROLES = ['admin', 'auditor', 'team_admin', 'member'] as const;
export type Role = (typeof ROLES)[number];
export type TeamRole = Extract<Role, 'team_admin' | 'member'>;

/** A role held in one team: `team` is the team's id. */
export interface TeamGrant {
  team: string;
  role: TeamRole;
}

/**
 * Who is asking the admin API: a token (`admin.token`, a scoped `sy-admin-…` token), a person
 * signed in through the identity provider, or the gateway itself (a reload, a scheduled run).
 */
export interface Actor {
  kind: 'token' | 'user' | 'system';
  /** `admin.token`, a token's `tok_…` id, the person's `sub` at the issuer, or `gateway`. */
  id: string;
  name: string;
  /** The strongest role held: what the audit trail shows. */
  role: Role;
  /** `admin` or `auditor` when held across every team; null when only team roles are. */
  global: Extract<Role, 'admin' | 'auditor'> | null;
  grants: readonly TeamGrant[];
}

/** The gateway acting on its own: config reloads, scheduled drills and canaries. */
export const SYSTEM_ACTOR: Actor = { kind: 'system', id: 'gateway', name: 'gateway', role: 'admin', global: 'admin', grants: [] };

/** The strongest of the roles held, in the order `ROLES` lists them. */
export function strongestRole(global: Actor['global'], grants: readonly TeamGrant[]): Role | undefined {
  const held = new Set<Role>([...(global ? [global] : []), ...grants.map((grant) => grant.role)]);
  return ROLES.find((role) => held.has(role));
}

/**
 * Whether the actor may act on a team's things with one of `roles` (admin always may; `auditor`
 * only where listed). Takes the grants alone, so the dashboard asks it of `GET /admin/me`'s answer.
 */
export function holdsTeamRole(actor: Pick<Actor, 'global' | 'grants'>, teamId: string | null, roles: readonly Role[]): boolean {
  if (actor.global === 'admin') return true;
  if (actor.global !== null && roles.includes(actor.global)) return true;
  if (teamId === null) return false;
  return actor.grants.some((grant) => grant.team === teamId && roles.includes(grant.role));
}
