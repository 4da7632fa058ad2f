import { identifyAdmin, type AdminAccessDeps } from '../access/admin-access.js';
import { ADMIN_RULES, heldRoles } from '../access/admin-rules.js';
import { permissionDenied } from '../access/permission-denied.js';
import { rememberActor } from '../access/request-actor.js';
import type { RouteHandler, RouteTable } from './route-matcher.js';

/**
 * Puts every `/admin/` route of the table behind its rule (admin-rules.ts): the caller is
 * identified (401 otherwise) and must hold a role the rule lets through (403 otherwise) before the
 * handler runs. A route without a rule is a mistake caught at start, not an open door.
 */
export function guardAdminRoutes(table: RouteTable, access: AdminAccessDeps): RouteTable {
  const guarded: Record<string, RouteHandler> = {};
  for (const [route, handler] of Object.entries(table)) {
    if (!route.includes(' /admin/')) {
      guarded[route] = handler;
      continue;
    }
    const roles = ADMIN_RULES[route];
    if (!roles) throw new Error(`${route} has no rule in ADMIN_RULES: say which roles may call it`);
    guarded[route] = async (request, response, requestId, params) => {
      const actor = await identifyAdmin(request, access);
      const held = heldRoles(actor);
      if (!roles.some((role) => held.has(role)) && !held.has('admin')) throw permissionDenied(roles, route);
      rememberActor(request, actor);
      await handler(request, response, requestId, params);
    };
  }
  return guarded;
}
