import type { Role } from '../core/actor.js';

const EVERY_ROLE: readonly Role[] = ['admin', 'auditor', 'team_admin', 'member'];
const READERS: readonly Role[] = ['admin', 'auditor'];
const ADMIN_ONLY: readonly Role[] = ['admin'];

/**
 * Who may call each admin endpoint at all (SPEC §15): the roles let through the door. An endpoint
 * open to team roles narrows further inside, to the teams the caller holds a role in (its keys,
 * its spend, the requests made with its keys). `admin` may do everything. An `/admin/` route with no
 * entry here stops the gateway at start (guard-admin-routes.ts), and fails the role matrix test.
 */
export const ADMIN_RULES: Readonly<Record<string, readonly Role[]>> = {
  'GET /admin/me': EVERY_ROLE,
  'GET /admin/requests': EVERY_ROLE,
  'GET /admin/requests/:id': EVERY_ROLE,
  // Deployment health belongs to no team, and whoever watches a team's traffic needs it.
  'GET /admin/health': EVERY_ROLE,
  'GET /admin/stats': EVERY_ROLE,
  'POST /admin/keys': ['admin', 'team_admin', 'member'],
  'GET /admin/keys': EVERY_ROLE,
  'PATCH /admin/keys/:id': ['admin', 'team_admin'],
  'DELETE /admin/keys/:id': ['admin', 'team_admin', 'member'],
  'POST /admin/keys/:id/rotate': ['admin', 'team_admin'],
  'GET /admin/keys/:id/spend': EVERY_ROLE,
  'POST /admin/teams': ADMIN_ONLY,
  'GET /admin/teams': EVERY_ROLE,
  'GET /admin/teams/:id': EVERY_ROLE,
  'PATCH /admin/teams/:id': ['admin', 'team_admin'],
  'DELETE /admin/teams/:id': ADMIN_ONLY,
  'GET /admin/teams/:id/spend': EVERY_ROLE,
  'POST /admin/tokens': ADMIN_ONLY,
  'GET /admin/tokens': READERS,
  'DELETE /admin/tokens/:id': ADMIN_ONLY,
  'GET /admin/audit': READERS,
  'GET /admin/canaries': READERS,
  'POST /admin/canaries': ADMIN_ONLY,
  'DELETE /admin/canaries/:route/baseline': ADMIN_ONLY,
  'POST /admin/drills': ADMIN_ONLY,
  'GET /admin/drills': READERS,
  'POST /admin/rehearsals': ADMIN_ONLY,
};

/** The roles an actor holds, each once: its global role and those of its teams. */
export function heldRoles(actor: { global: Role | null; grants: readonly { role: Role }[] }): Set<Role> {
  return new Set<Role>([...(actor.global ? [actor.global] : []), ...actor.grants.map((grant) => grant.role)]);
}
