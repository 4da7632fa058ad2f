import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/schema.js';
import { authenticateRequest } from '../keys/authenticate.js';
import type { KeyCache } from '../keys/key-cache.js';
import { routeAllowed } from '../keys/route-globs.js';
import { sendJson } from './send.js';

/**
 * `GET /v1/models`: the configured routes, in the OpenAI list shape — behind the same key check
 * as completions, and only the routes the caller's key may use.
 */
export async function handleModels(
  request: IncomingMessage,
  response: ServerResponse,
  deps: { config: Config; keys: KeyCache; startedAtSeconds: number },
): Promise<void> {
  const principal = await authenticateRequest(request.headers, { mode: deps.config.auth.mode, keys: deps.keys, nowMs: Date.now() });
  const routes = Object.keys(deps.config.routes).filter((id) => principal.kind === 'anonymous' || routeAllowed(principal.key.routes, id));
  sendJson(response, 200, {
    object: 'list',
    data: routes.map((id) => ({ id, object: 'model', created: deps.startedAtSeconds, owned_by: 'switchyard' })),
  });
}
