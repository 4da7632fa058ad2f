import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Config } from '../config/schema.js';
import { deadlineFromHeaders } from '../engine/deadline.js';
import { routeLabel } from '../engine/run-route.js';
import { authenticateRequest, authorizeRoute, type Principal } from '../keys/authenticate.js';
import type { KeyCache } from '../keys/key-cache.js';
import type { RecordDraft } from '../records/record-draft.js';
import { resolveRoute, type ResolvedRoute } from '../routing/resolve-route.js';
import type { Metrics } from '../telemetry/metrics.js';
import type { InFlightLimit } from './in-flight-limit.js';
import { readJsonBody } from './read-json-body.js';

export interface GateDeps {
  config(): Config;
  keys: KeyCache;
  metrics: Metrics;
  inFlight: InFlightLimit;
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
 * A refused caller's body is read to learn its model only up to this declared size: its bytes
 * arrive (and are drained) anyway, but a large body is not worth parsing for a record.
 */
const REFUSED_BODY_READ_BYTES = 64 * 1024;

/**
 * The first part of the synchronous gate, the same for every inference endpoint: who is asking
 * (settled before the body is read), the body (from then on the request counts against
 * `server.max_in_flight`), the route and whether the key may use it, and the deadline.
 * Everything learned goes into `trace`, refusals included, so a refused request's record still
 * says what it asked for.
 */
export async function openGate<Parsed extends { requestedModel: string }>(
  request: IncomingMessage,
  trace: RecordDraft,
  deps: GateDeps,
  parse: (body: unknown, headers: IncomingHttpHeaders) => Parsed,
): Promise<OpenedGate<Parsed>> {
  const config = deps.config();
  const principal = await authenticateRequest(request.headers, { mode: config.auth.mode, keys: deps.keys, nowMs: trace.startedAtMs }).catch(
    async (error: unknown) => {
      await noteRefusedBody(request, trace, config);
      throw error;
    },
  );
  if (principal.kind === 'key') {
    trace.keyName = principal.key.name;
    trace.keyId = principal.key.id;
  }
  const body = await readJsonBody(request, { maxBytes: config.server.max_body_bytes, timeoutMs: config.server.body_timeout_ms });
  deps.inFlight.enter(request);
  trace.noteAskedFor(body.json);
  let parsed: Parsed;
  try {
    parsed = parse(body.json, request.headers);
  } catch (error) {
    noteRoute(trace, config);
    throw error;
  }
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

/** A caller refused before its body was read: a small body is still read for the record. */
async function noteRefusedBody(request: IncomingMessage, trace: RecordDraft, config: Config): Promise<void> {
  const declaredBytes = Number(request.headers['content-length']);
  if (!(declaredBytes <= Math.min(REFUSED_BODY_READ_BYTES, config.server.max_body_bytes))) return;
  const body = await readJsonBody(request, { maxBytes: REFUSED_BODY_READ_BYTES, timeoutMs: config.server.body_timeout_ms }).catch(() => undefined);
  if (!body) return;
  trace.noteAskedFor(body.json);
  noteRoute(trace, config);
}

/** The route a refused request's model names, when it names one (an unknown model has none). */
function noteRoute(trace: RecordDraft, config: Config): void {
  if (trace.modelRequested === null) return;
  try {
    trace.route = resolveRoute(config, trace.modelRequested).name;
  } catch {
    trace.route = null;
  }
}
