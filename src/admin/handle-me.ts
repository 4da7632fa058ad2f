import type { IncomingMessage, ServerResponse } from 'node:http';
import { ADMIN_RULES, heldRoles } from '../access/admin-rules.js';
import { actorOf } from '../access/request-actor.js';
import { noStore, sendJson } from '../http/send.js';
import type { AdminMeResponse } from './admin-api-types.js';

/**
 * `GET /admin/me` → who the gateway takes the caller for, and which admin endpoints its roles let
 * it through: the dashboard shows the one and hides the actions the other excludes.
 */
export function handleMe(request: IncomingMessage, response: ServerResponse): void {
  const actor = actorOf(request);
  const held = heldRoles(actor);
  const allowed = Object.entries(ADMIN_RULES)
    .filter(([, roles]) => held.has('admin') || roles.some((role) => held.has(role)))
    .map(([route]) => route);
  const body: AdminMeResponse = { kind: actor.kind, id: actor.id, name: actor.name, role: actor.role, global_role: actor.global, teams: actor.grants, allowed };
  sendJson(response, 200, body, noStore());
}
