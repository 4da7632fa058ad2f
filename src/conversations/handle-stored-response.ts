import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import { sendJson } from '../http/send.js';
import { authenticateRequest } from '../keys/authenticate.js';
import type { KeyCache } from '../keys/key-cache.js';
import { printableId } from '../dialects/openai-responses/expand-conversation.js';
import { DAY_MS, responseScopeOf, type ResponseScope, type StoredResponses } from './stored-responses.js';

export interface StoredResponseDeps {
  config: Config;
  keys: KeyCache;
  stored: StoredResponses;
}

/** `GET /v1/responses/{id}`: the stored response object, as its create call returned it. */
export async function handleGetStoredResponse(request: IncomingMessage, response: ServerResponse, id: string, deps: StoredResponseDeps): Promise<void> {
  const scope = await scopeOf(request, deps);
  const notBeforeMs = Date.now() - deps.config.responses.retention_days * DAY_MS;
  const found = await deps.stored.find(id, scope, notBeforeMs);
  if (!found) throw notFound(id);
  sendJson(response, 200, found.response);
}

/** `DELETE /v1/responses/{id}`: the stored response is gone, for GET and `previous_response_id` alike. */
export async function handleDeleteStoredResponse(request: IncomingMessage, response: ServerResponse, id: string, deps: StoredResponseDeps): Promise<void> {
  const scope = await scopeOf(request, deps);
  if (!(await deps.stored.remove(id, scope))) throw notFound(id);
  sendJson(response, 200, { id, object: 'response', deleted: true });
}

/** Behind the same key check as `POST /v1/responses`; a key sees only what it created. */
async function scopeOf(request: IncomingMessage, deps: StoredResponseDeps): Promise<ResponseScope> {
  return responseScopeOf(await authenticateRequest(request.headers, { mode: deps.config.auth.mode, keys: deps.keys, nowMs: Date.now() }));
}

/** Another key's response is as unknown as one that never was: the same 404 either way. */
function notFound(id: string): GatewayError {
  return new GatewayError(`Response with id '${printableId(id)}' not found.`, {
    status: 404,
    code: 'not_found',
    type: 'invalid_request_error',
    param: 'response_id',
  });
}
