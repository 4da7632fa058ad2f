import type { IncomingMessage } from 'node:http';
import type { Config } from '../config/schema.js';
import { deadlineFromHeaders } from '../engine/deadline.js';
import { routeLabel } from '../engine/run-route.js';
import { authenticateRequest, authorizeRoute, type Principal } from '../keys/authenticate.js';
import type { KeyCache } from '../keys/key-cache.js';
import type { RequestTrace } from '../records/request-trace.js';
import { resolveRoute, type ResolvedRoute } from '../routing/resolve-route.js';
import type { Metrics } from '../telemetry/metrics.js';
import { readJsonBody } from './read-json-body.js';

export interface GateDeps {
  config(): Config;
  keys: KeyCache;
  metrics: Metrics;
}

export interface OpenedGate<Parsed> {
  config: Config;
  principal: Principal;
  /** The body as received (idempotency hashes it). */
  bodyText: string;
  parsed: Parsed;
  route: ResolvedRoute;
  deadlineAtMs: number;
}

/**
 * The first part of the synchronous gate, the same for every inference endpoint: who is asking
 * (settled before the body is read, so a refused caller costs nothing), the body, the route and
 * whether the key may use it, and the deadline. Everything learned goes into `trace`.
 */
export async function openGate<Parsed extends { requestedModel: string }>(
  request: IncomingMessage,
  trace: RequestTrace,
  deps: GateDeps,
  parse: (body: unknown) => Parsed,
): Promise<OpenedGate<Parsed>> {
  const config = deps.config();
  const principal = await authenticateRequest(request.headers, { mode: config.auth.mode, keys: deps.keys, nowMs: trace.startedAtMs });
  if (principal.kind === 'key') {
    trace.keyName = principal.key.name;
    trace.keyId = principal.key.id;
  }
  const body = await readJsonBody(request, config.server.max_body_bytes);
  const parsed = parse(body.json);
  trace.modelRequested = parsed.requestedModel;
  const route = resolveRoute(config, parsed.requestedModel);
  trace.route = route.name;
  trace.routeLabel = routeLabel(route);
  authorizeRoute(principal, route);
  const deadlineAtMs = deadlineFromHeaders(request.headers, route.policy.timeouts.total_ms, trace.startedAtMs);
  trace.deadlineAtMs = deadlineAtMs;
  if (Number(request.headers['x-stainless-retry-count']) > 0) deps.metrics.callerRetries.inc({ route: trace.routeLabel });
  return { config, principal, bodyText: body.text, parsed, route, deadlineAtMs };
}
