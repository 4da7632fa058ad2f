import type { IncomingMessage } from 'node:http';
import type { Actor } from '../core/actor.js';

const actors = new WeakMap<IncomingMessage, Actor>();

/** Kept by the admin route guard (http/guard-admin-routes.ts) once it has identified the caller. */
export function rememberActor(request: IncomingMessage, actor: Actor): void {
  actors.set(request, actor);
}

/** The actor the guard let through for this request; only an admin handler asks, and the guard always ran first. */
export function actorOf(request: IncomingMessage): Actor {
  const actor = actors.get(request);
  if (!actor) throw new Error('actorOf: the request did not pass guardAdminRoutes');
  return actor;
}
