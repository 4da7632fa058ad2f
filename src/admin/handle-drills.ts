import type { IncomingMessage, ServerResponse } from 'node:http';
import { auditContextOf } from '../audit/audit-trail.js';
import { DrillRunningError, type DrillRunner } from '../drills/drill-runner.js';
import { GatewayError } from '../errors/gateway-error.js';
import { isRecord } from '../config/is-record.js';
import { hasBody, readJsonBody } from '../http/read-json-body.js';
import { noStore, sendJson } from '../http/send.js';
import type { AdminDrillResponse } from './admin-api-types.js';

export interface AdminDrillsDeps {
  drills: DrillRunner;
}

/** `{"route": NAME}` is a few dozen bytes. */
const MAX_BODY_BYTES = 16 * 1024;
const BODY_TIMEOUT_MS = 10_000;

/**
 * `POST /admin/drills` with an optional `{"route": NAME}`: runs the drill and answers 200 with the
 * run once it has finished (and audited as the caller's, `drill.run`); 409 `drill_running` (with the
 * running run's id) while one runs here or, with Redis, on another replica.
 */
export async function handleRunDrill(request: IncomingMessage, response: ServerResponse, deps: AdminDrillsDeps, requestId: string): Promise<void> {
  const route = await routeAskedFor(request);
  const context = auditContextOf(request, requestId);
  let started: Awaited<ReturnType<DrillRunner['start']>>;
  try {
    started = await deps.drills.start(route === undefined ? { context } : { route, context });
  } catch (error) {
    if (!(error instanceof DrillRunningError)) throw error;
    sendJson(response, 409, { error: { message: error.message, type: 'invalid_request_error', param: null, code: 'drill_running', run_id: error.runId } }, noStore());
    return;
  }
  sendJson(response, 200, (await started.done) satisfies AdminDrillResponse, noStore());
}

/** `GET /admin/drills`: the latest run (the one running, with the steps so far), 404 before any. */
export async function handleLatestDrill(_request: IncomingMessage, response: ServerResponse, deps: AdminDrillsDeps): Promise<void> {
  const run = await deps.drills.latest();
  if (!run) throw new GatewayError('No drill has run yet: start one with POST /admin/drills or `switchyard drill`.', { status: 404, code: 'not_found', type: 'invalid_request_error' });
  sendJson(response, 200, run satisfies AdminDrillResponse, noStore());
}

/** The body is optional: none (or `{}`) drills every route `drills.routes` matches. */
async function routeAskedFor(request: IncomingMessage): Promise<string | undefined> {
  if (!hasBody(request)) return undefined;
  const { json } = await readJsonBody(request, { maxBytes: MAX_BODY_BYTES, timeoutMs: BODY_TIMEOUT_MS });
  if (!isRecord(json)) throw badBody('body', 'The body must be a JSON object, e.g. {"route": "support"}.');
  for (const field of Object.keys(json)) {
    if (field !== 'route') throw badBody(field, `Unknown field '${field}'; the only field is 'route'.`);
  }
  if (json.route === undefined) return undefined;
  if (typeof json.route !== 'string' || json.route === '') throw badBody('route', "'route' must be a route name (a non-empty string).");
  return json.route;
}

function badBody(param: string, message: string): GatewayError {
  return new GatewayError(message, { status: 400, code: 'invalid_request_error', type: 'invalid_request_error', param });
}
