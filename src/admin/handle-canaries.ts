import type { IncomingMessage, ServerResponse } from 'node:http';
import { auditContextOf } from '../audit/audit-trail.js';
import { CanaryPromptsError } from '../canaries/canary-prompts.js';
import { CanaryRunningError, type CanaryRunner } from '../canaries/canary-runner.js';
import type { CanaryStore } from '../canaries/canary-store.js';
import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import { hasBody, readJsonBody } from '../http/read-json-body.js';
import { noStore, sendJson } from '../http/send.js';
import { storeCall } from '../store/store-call.js';
import { SHUTTING_DOWN } from '../schedules/schedule.js';
import type { AdminCanariesResponse, AdminCanaryRunsResponse, CanaryRouteView } from './admin-api-types.js';

export interface AdminCanariesDeps {
  config(): Config;
  canaries: CanaryRunner;
  store: CanaryStore;
}

type Params = Readonly<Record<string, string>>;

/** `{"route": NAME}` is all a run request carries. */
const MAX_BODY_BYTES = 16 * 1024;
const BODY_TIMEOUT_MS = 10_000;

/** `GET /admin/canaries` → `{data: [{route, baseline, baseline_runs, max_drop, running, latest}]}`, in config order. */
export async function handleListCanaries(_request: IncomingMessage, response: ServerResponse, _params: Params, deps: AdminCanariesDeps): Promise<void> {
  const config = deps.config();
  const data = await Promise.all(
    Object.entries(config.canaries).map(async ([route, canary]): Promise<CanaryRouteView> => {
      const learned = await storeCall(deps.store.learnedBaseline(route));
      return {
        route,
        baseline: canary.baseline === 'auto' ? learned.baseline : canary.baseline,
        baseline_runs: learned.runs,
        max_drop: canary.max_drop,
        running: deps.canaries.runningId(route) ?? null,
        latest: await storeCall(deps.store.runs(route)),
      };
    }),
  );
  sendJson(response, 200, { data } satisfies AdminCanariesResponse, noStore());
}

/**
 * `POST /admin/canaries` with an optional `{"route": NAME}` → `{data: [runs]}` once every asked
 * route has run (every canary route without one), each run audited as the caller's (`canary.run`);
 * 409 `canary_running` when one of them is running.
 */
export async function handleRunCanaries(request: IncomingMessage, response: ServerResponse, _params: Params, deps: AdminCanariesDeps, requestId: string): Promise<void> {
  const config = deps.config();
  const route = await requestedRoute(request);
  if (route !== undefined) checkCanaryRoute(config, route);
  let runs;
  try {
    runs = await deps.canaries.runNow(route === undefined ? Object.keys(config.canaries) : [route], auditContextOf(request, requestId));
  } catch (error) {
    if (error instanceof CanaryRunningError) {
      sendJson(response, 409, { error: { message: error.message, type: 'invalid_request_error', code: 'canary_running', route: error.route, run_id: error.runId } }, noStore());
      return;
    }
    if (error instanceof CanaryPromptsError) {
      sendJson(response, 500, { error: { message: error.message, type: 'server_error', code: 'canary_prompts_invalid' } }, noStore());
      return;
    }
    if (error === SHUTTING_DOWN) throw new GatewayError('The gateway is shutting down; the canary run was cut short and not kept.', { status: 503, code: 'gateway_unavailable', type: 'server_error' });
    throw error;
  }
  sendJson(response, 200, { data: runs } satisfies AdminCanaryRunsResponse, noStore());
}

/** `DELETE /admin/canaries/:route/baseline` → the route's next three complete runs learn its `auto` baseline anew. */
export async function handleResetCanaryBaseline(_request: IncomingMessage, response: ServerResponse, params: Params, deps: AdminCanariesDeps): Promise<void> {
  const config = deps.config();
  const route = params.route ?? '';
  checkCanaryRoute(config, route);
  const forgotten = await storeCall(deps.store.resetBaseline(route));
  sendJson(response, 200, { route, reset: forgotten, baseline: config.canaries[route]!.baseline === 'auto' ? null : config.canaries[route]!.baseline, baseline_runs: 0 }, noStore());
}

/** The body is optional; when there is one it is `{"route": NAME}` and nothing else. */
async function requestedRoute(request: IncomingMessage): Promise<string | undefined> {
  if (!hasBody(request)) return undefined;
  const { json } = await readJsonBody(request, { maxBytes: MAX_BODY_BYTES, timeoutMs: BODY_TIMEOUT_MS });
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw badBody('The body must be a JSON object, {"route": NAME}, or empty.');
  const { route, ...rest } = json as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw badBody(`Unknown field "${unknown}"; the body is {"route": NAME}.`, unknown);
  if (route !== undefined && (typeof route !== 'string' || route === '')) throw badBody('"route" must be a route name.', 'route');
  return route;
}

function checkCanaryRoute(config: Config, route: string): void {
  if (Object.hasOwn(config.canaries, route)) return;
  const known = Object.keys(config.canaries);
  throw new GatewayError(`Route "${route}" has no canary (canaries: ${known.length > 0 ? known.join(', ') : 'none configured'}).`, {
    status: 404,
    code: 'not_found',
    type: 'invalid_request_error',
    param: 'route',
  });
}

function badBody(message: string, param?: string): GatewayError {
  return new GatewayError(message, { status: 400, code: 'invalid_request_error', type: 'invalid_request_error', ...(param ? { param } : {}) });
}
