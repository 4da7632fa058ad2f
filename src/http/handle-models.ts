import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/schema.js';
import { redactKeyShapes } from '../core/redact-key-shapes.js';
import { GatewayError } from '../errors/gateway-error.js';
import { authenticateRequest, mayUseRoute, type Principal } from '../keys/authenticate.js';
import type { KeyCache } from '../keys/key-cache.js';
import { exactAliases, routeNamed } from '../routing/resolve-route.js';
import { sendJson } from './send.js';

export interface ModelsDeps {
  config: Config;
  keys: KeyCache;
  startedAtSeconds: number;
}

/**
 * `GET /v1/models`: the configured routes and their exact aliases, in the OpenAI list shape —
 * behind the same key check as completions, and only what the caller's key may use (an alias
 * is usable when its route is).
 */
export async function handleModels(request: IncomingMessage, response: ServerResponse, deps: ModelsDeps): Promise<void> {
  const principal = await authenticate(request, deps);
  const routes = Object.keys(deps.config.routes).filter((id) => mayUseRoute(principal, id));
  const aliases = [...exactAliases(deps.config)].filter(([alias, route]) => mayUseRoute(principal, route) && !Object.hasOwn(deps.config.routes, alias));
  sendJson(response, 200, { object: 'list', data: [...routes, ...aliases.map(([alias]) => alias)].map((id) => modelObject(id, deps)) });
}

/**
 * `GET /v1/models/{id}`: a name the completions endpoints would serve by a route (a route name or
 * an alias, glob aliases included), in the OpenAI model shape. A route the key may not use is
 * as unknown as one that does not exist, as in the list: a 404 either way.
 */
export async function handleModel(request: IncomingMessage, response: ServerResponse, id: string, deps: ModelsDeps): Promise<void> {
  const principal = await authenticate(request, deps);
  const route = routeNamed(deps.config, id);
  if (route === undefined || !mayUseRoute(principal, route)) {
    throw new GatewayError(`The model \`${redactKeyShapes(id)}\` does not exist or you do not have access to it. GET /v1/models lists the models you can use.`, {
      status: 404,
      code: 'model_not_found',
      type: 'invalid_request_error',
      param: 'model',
    });
  }
  sendJson(response, 200, modelObject(id, deps));
}

function authenticate(request: IncomingMessage, deps: ModelsDeps): Promise<Principal> {
  return authenticateRequest(request.headers, { mode: deps.config.auth.mode, keys: deps.keys, nowMs: Date.now() });
}

function modelObject(id: string, deps: ModelsDeps): Record<string, unknown> {
  return { id, object: 'model', created: deps.startedAtSeconds, owned_by: 'switchyard' };
}
