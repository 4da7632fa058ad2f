import type { Logger } from 'pino';
import { admitRequest, type AdmissionDeps, type AdmissionHandle } from '../admission/admit-request.js';
import type { Config } from '../config/schema.js';
import { sessionHash, sessionIdOf } from '../dialects/shared/session-id.js';
import { deadlineFromHeaders } from '../engine/deadline.js';
import { routeLabel } from '../engine/run-route.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { InFlightLimit } from '../http/in-flight-limit.js';
import { idempotencyKeyOf, upstreamIdempotencyKey } from '../idempotency/idempotency-key-header.js';
import { bodyHash, type IdempotencyStore } from '../idempotency/idempotency-store.js';
import { authenticateRequest, authorizeRoute, mayUseRoute, type Principal } from '../keys/authenticate.js';
import type { KeyCache } from '../keys/key-cache.js';
import type { RecordDraft } from '../records/record-draft.js';
import { resolveRoute } from '../routing/resolve-route.js';
import type { SessionAffinity } from '../routing/session-affinity.js';
import type { Metrics } from '../telemetry/metrics.js';
import type { CallerReply } from './caller-reply.js';
import { clientHints } from './client-hints.js';
import type { Endpoint } from './endpoint.js';
import type { Inbound } from './inbound.js';
import type { IdempotencyClaim, RequestContext, RequestStart } from './request-context.js';

export interface OpenDeps extends AdmissionDeps {
  keys: KeyCache;
  metrics: Metrics;
  logger: Logger;
  inFlight: InFlightLimit;
  idempotency: IdempotencyStore;
  affinity: SessionAffinity;
}

export interface OpenedRequest<Parsed> {
  context: RequestContext;
  parsed: Parsed;
}

/**
 * A refused caller's body is read to learn its model only up to this declared size: its bytes
 * arrive (and are drained) anyway, but a large body is not worth parsing for a record.
 */
const REFUSED_BODY_READ_BYTES = 64 * 1024;

/** An unreadable hint header is logged this far: enough to see what the SDK sent. */
const MAX_LOGGED_HINT_CHARS = 100;

/** The output cap sent upstream, when the key's budget lowered it. */
const MAX_TOKENS_HEADER = 'x-switchyard-max-tokens';

/**
 * The synchronous gate, the same for every inference endpoint, before any provider is called:
 * who is asking (settled before the body is read), the body (from then on the request counts
 * against `server.max_in_flight`), the route and whether the key may use it, the deadline, the
 * idempotency claim and admission (limits, budget). Everything learned goes into the draft,
 * refusals included, so a refused request's record still says what it asked for. `replayed`:
 * a finished twin was answered again and nothing else is to be done.
 */
export async function openRequest<Parsed extends { requestedModel: string }>(
  request: Inbound,
  reply: CallerReply,
  start: RequestStart,
  endpoint: Endpoint<Parsed, unknown>,
  deps: OpenDeps,
): Promise<OpenedRequest<Parsed> | 'replayed'> {
  const { config, draft } = start;
  let principal: Principal;
  try {
    principal = await authenticateRequest(request.headers, { mode: config.auth.mode, keys: deps.keys, nowMs: draft.startedAtMs });
  } catch (error) {
    await noteRefusedBody(request, draft, config);
    throw error;
  }
  if (principal.kind === 'key') {
    draft.keyName = principal.key.name;
    draft.keyId = principal.key.id;
    draft.teamId = principal.key.teamId;
  }
  const body = await request.readBody({ maxBytes: config.server.max_body_bytes, timeoutMs: config.server.body_timeout_ms });
  deps.inFlight.enter(request);
  draft.noteAskedFor(body.json);
  const sessionId = sessionIdOf(request.headers, body.json);
  if (sessionId !== undefined) draft.session = sessionHash(sessionId);
  let parsed: Parsed;
  try {
    const prepared = endpoint.prepareBody ? await endpoint.prepareBody(body.json, principal) : body.json;
    parsed = endpoint.parse(prepared, request.headers, prepared === body.json ? body.text : undefined);
  } catch (error) {
    noteRoute(draft, config);
    throw error;
  }
  draft.modelRequested = parsed.requestedModel;
  const route = resolveRoute(config, parsed.requestedModel, (name) => mayUseRoute(principal, name));
  draft.route = route.name;
  draft.routeLabel = routeLabel(route);
  authorizeRoute(principal, route);
  const hints = clientHints(request.headers, (header, value) =>
    deps.logger.debug({ request_id: draft.id, header, value: value.slice(0, MAX_LOGGED_HINT_CHARS) }, 'client hint header ignored: not a value the gateway can read'),
  );
  const deadlineAtMs = deadlineFromHeaders(request.headers, { totalMs: route.policy.timeouts.total_ms, nowMs: draft.startedAtMs, sdkTimeoutMs: hints.timeoutMs });
  draft.deadlineAtMs = deadlineAtMs;
  if (hints.retryCount !== undefined && hints.retryCount > 0) deps.metrics.callerRetries.inc({ route: draft.routeLabel });
  // Read beside the gate, so that with Redis the binding costs no round trip of its own.
  const sessionBinding = draft.session === undefined ? undefined : deps.affinity.lookup(route, draft.session);

  // Read here, so a request without the header (most) never enters the claim's async function.
  const scope = endpoint.idempotencyScope;
  const idempotencyKey = scope === undefined ? undefined : idempotencyKeyOf(request.headers);
  const idempotency = scope === undefined || idempotencyKey === undefined ? undefined : await claimIdempotencyKey(idempotencyKey, reply, body.text, principal, scope, draft, deps);
  if (idempotency === 'replayed') return 'replayed';
  let admission: AdmissionHandle;
  try {
    admission = await admitRequest(principal, endpoint.demand(parsed), route, { config, nowMs: draft.startedAtMs }, deps);
  } catch (error) {
    // A refused request holds nothing: the claim is released for a retry of the same key.
    if (idempotency) deps.idempotency.abandon(idempotency.entry);
    throw error;
  }
  if (admission.maxTokensClamped) {
    draft.maxTokensClamped = admission.maxTokensClamped;
    reply.setHeader(MAX_TOKENS_HEADER, String(admission.maxTokensClamped.sent));
  }
  const context: RequestContext = {
    config,
    draft,
    caller: start.caller,
    principal,
    route,
    deadlineAtMs,
    admission,
    idempotency,
    sessionId,
    sessionBinding: sessionBinding === undefined ? undefined : await sessionBinding,
  };
  return { context, parsed };
}

/**
 * With an `Idempotency-Key` (docs/lifecycle.md): a finished twin is replayed here without a new generation;
 * one still running is a 409 with `retry-after`; the same key with another body is a 422.
 */
async function claimIdempotencyKey(
  key: string,
  reply: CallerReply,
  bodyText: string,
  principal: Principal,
  endpointScope: string,
  draft: RecordDraft,
  deps: OpenDeps,
): Promise<IdempotencyClaim | 'replayed'> {
  draft.idempotencyKey = key;
  const scope = `${principal.kind === 'key' ? principal.key.id : 'anonymous'} ${endpointScope}`;
  const begun = await deps.idempotency.begin({ key, scope, bodyHash: bodyHash(bodyText), nowMs: draft.startedAtMs });
  switch (begun.state) {
    case 'done':
      draft.replayed = true;
      draft.httpStatus = begun.stored.status;
      reply.replay(begun.stored);
      return 'replayed';
    case 'running':
      throw new GatewayError('A request with this Idempotency-Key is still running; retry when it has finished.', {
        status: 409,
        code: 'idempotency_key_in_use',
        type: 'invalid_request_error',
        retryAfterMs: begun.retryAfterMs,
      });
    case 'mismatch':
      throw new GatewayError('This Idempotency-Key was used with a different request body.', {
        status: 422,
        code: 'idempotency_key_mismatch',
        type: 'invalid_request_error',
        param: 'Idempotency-Key',
      });
    case 'new':
      return { entry: begun.entry, upstreamKey: upstreamIdempotencyKey(scope, key), completed: false };
  }
}

/** A caller refused before its body was read: a small body is still read for the record. */
async function noteRefusedBody(request: Inbound, draft: RecordDraft, config: Config): Promise<void> {
  const body = await request.readSmallBody({ maxBytes: Math.min(REFUSED_BODY_READ_BYTES, config.server.max_body_bytes), timeoutMs: config.server.body_timeout_ms });
  if (!body) return;
  draft.noteAskedFor(body.json);
  noteRoute(draft, config);
}

/** The route a refused request's model names, when it names one (an unknown model has none). */
function noteRoute(draft: RecordDraft, config: Config): void {
  if (draft.modelRequested === null) return;
  try {
    draft.route = resolveRoute(config, draft.modelRequested).name;
  } catch {
    draft.route = null;
  }
}
