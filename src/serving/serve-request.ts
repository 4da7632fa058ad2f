import type { IncomingMessage } from 'node:http';
import type { Config } from '../config/schema.js';
import { knownSecrets } from '../config/known-secrets.js';
import { runRoute, type EngineDeps, type Served } from '../engine/run-route.js';
import { DRAIN_TIME_UP } from '../core/cancellation.js';
import { AllAttemptsFailedError } from '../errors/all-attempts-failed-error.js';
import { callerCancellation } from '../http/caller-cancellation.js';
import type { GatewayResponse } from '../http/gateway-response.js';
import { Heartbeat } from '../http/heartbeat.js';
import { retryHeaders, sendJson, servedHeaders } from '../http/send.js';
import { writeSse } from '../http/write-sse.js';
import { isReplayable } from '../idempotency/idempotency-store.js';
import { RecordingSseRenderer } from '../http/recording-sse-renderer.js';
import { secretRedactor } from '../records/redact-secrets.js';
import { RecordDraft } from '../records/record-draft.js';
import type { Endpoint } from './endpoint.js';
import { failureBody } from './failure-body.js';
import { finishRequest, type FinishDeps } from './finish-request.js';
import { openRequest, type OpenDeps, type OpenedRequest } from './open-request.js';
import { recordFailure } from './record-failure.js';
import type { IdempotencyClaim, RequestContext } from './request-context.js';

/** A replayable stream is kept up to this size; a longer one is answered but not stored. */
const MAX_STORED_STREAM_CHARS = 4 * 1024 * 1024;

export interface ServingDeps extends OpenDeps, FinishDeps {
  config(): Config;
  engine: EngineDeps;
}

/**
 * One inference request, top to bottom: the config snapshot and the record draft are taken once
 * on arrival; `openRequest` gates it; the engine runs the endpoint's operation; the answer goes
 * out through the caller dialect's JSON or SSE responder; and `finishRequest` is its one end,
 * whatever happened. An error thrown here reaches the HTTP edge, which answers it.
 */
export async function serveRequest<Parsed extends { requestedModel: string }, Answer>(
  request: IncomingMessage,
  response: GatewayResponse,
  requestId: string,
  endpoint: Endpoint<Parsed, Answer>,
  deps: ServingDeps,
): Promise<void> {
  const draft = new RecordDraft(requestId, Date.now());
  if (endpoint.operation) draft.operation = endpoint.operation;
  const start = { config: deps.config(), draft, caller: callerCancellation(response) };
  let context: RequestContext | undefined;
  let thrown: { error: unknown } | undefined;
  try {
    const opened = await openRequest(request, response, start, endpoint, deps);
    if (opened === 'replayed') return;
    context = opened.context;
    await answer(response, opened, endpoint, deps);
  } catch (error) {
    thrown = { error };
    throw error;
  } finally {
    finishRequest({ start, context, thrown, request, response }, deps);
  }
}

async function answer<Parsed extends { requestedModel: string }, Answer>(
  response: GatewayResponse,
  opened: OpenedRequest<Parsed>,
  endpoint: Endpoint<Parsed, Answer>,
  deps: ServingDeps,
): Promise<void> {
  const { context, parsed } = opened;
  const { draft, route, idempotency } = context;
  for (const [name, value] of Object.entries(endpoint.responseHeaders?.(parsed) ?? {})) response.setHeader(name, value);
  const streamRenderer = endpoint.streamRenderer(parsed, draft);
  // A stream waiting long for its first content keeps the caller's connection alive meanwhile.
  const heartbeat = streamRenderer ? new Heartbeat(response, route.policy.timeouts.heartbeat_ms) : undefined;
  // A shutdown that outlasts its drain time stops the upstream; the caller is told in its dialect (below, and writeSse).
  if (streamRenderer) response.endCutStream = () => context.caller.abort(DRAIN_TIME_UP);
  let outcome: Served<Answer>;
  try {
    outcome = await runRoute(
      {
        route,
        caller: context.caller,
        requestStartedAtMs: draft.startedAtMs,
        deadlineAtMs: context.deadlineAtMs,
        waited: draft.waited,
        ...(idempotency ? { upstreamIdempotencyKey: idempotency.upstreamKey } : {}),
        boundTarget: context.sessionBinding?.bound,
      },
      endpoint.operationOf(parsed, route, context.sessionId),
      deps.engine,
    );
  } catch (error) {
    heartbeat?.stop();
    if (!(error instanceof AllAttemptsFailedError)) throw error;
    answerFailure(response, error, context, endpoint, streamRenderer, deps);
    return;
  }

  draft.attempts = outcome.attempts;
  draft.skipped = outcome.skipped;
  draft.served = outcome.served;
  // Bound before the answer goes out, so the session's next turn finds it on any replica.
  if (context.sessionBinding) draft.affinity = deps.affinity.served(context.sessionBinding, outcome.served);
  const redact = secretRedactor(knownSecrets(context.config));
  const headers = servedHeaders(outcome.served, outcome.attempts.length, redact);
  const rendered = endpoint.render(outcome.answer, { parsed, served: outcome.served, draft });
  // Headers a heartbeat already sent stay as sent: the record says what really happened.
  if (!response.headersSent) for (const name of rendered.withdrawnHeaders ?? []) response.removeHeader(name);
  const keep = endpoint.keepAnswer?.bind(endpoint);
  const keepContext = { parsed, served: outcome.served, principal: context.principal };
  if ('json' in rendered) {
    draft.firstTokenAtMs = Date.now();
    if (keep) await keep(rendered.json as Record<string, unknown>, keepContext);
    const text = sendJson(response, 200, rendered.json, headers);
    storeForReplay(idempotency, 200, headers, { body: text }, deps);
    return;
  }
  heartbeat?.stop();
  if (!streamRenderer) throw new Error(`a stream answered a request that did not ask for one (${draft.id})`);
  const recorder = idempotency ? new RecordingSseRenderer(streamRenderer, MAX_STORED_STREAM_CHARS) : undefined;
  const ended = await writeSse(response, headers, rendered.events, recorder ?? streamRenderer, {
    onFirstWrite: () => {
      draft.firstTokenAtMs ??= Date.now();
    },
    redact,
    cutShort: () => (context.caller.reason === DRAIN_TIME_UP ? DRAIN_TIME_UP.message : undefined),
    ...(keep && streamRenderer.finalAnswer ? { beforeEnd: () => keep(streamRenderer.finalAnswer!(), keepContext) } : {}),
  });
  if (ended === 'interrupted') draft.fail('interrupted', 200, { code: 'stream_interrupted', message: draft.attempts.at(-1)?.message ?? null });
  else if (ended === 'cancelled') draft.fail('cancelled', 499, { code: 'cancelled' });
  else {
    const sse = recorder?.text();
    if (sse !== undefined) storeForReplay(idempotency, 200, headers, { sse }, deps);
  }
}

/** Every attempt failed: the final error as the caller's dialect spells it (in-band after a heartbeat). */
function answerFailure<Parsed extends { requestedModel: string }>(
  response: GatewayResponse,
  error: AllAttemptsFailedError,
  context: RequestContext,
  endpoint: Endpoint<Parsed, unknown>,
  streamRenderer: ReturnType<Endpoint<Parsed, unknown>['streamRenderer']>,
  deps: ServingDeps,
): void {
  const { draft } = context;
  const final = recordFailure(draft, error);
  if (context.caller.aborted) {
    // Cut by a shutdown after a heartbeat: the caller, still there, gets its dialect's error event.
    if (context.caller.reason === DRAIN_TIME_UP && response.headersSent && streamRenderer) {
      response.end(streamRenderer.error({ kind: 'stream_interrupted', message: DRAIN_TIME_UP.message, requestId: draft.id }));
    }
    draft.fail('cancelled', 499, { code: 'cancelled' });
    return;
  }
  const { message, body, attempts } = failureBody(final, error.attempts, draft.id, context.config, endpoint);
  // After a heartbeat the caller already has a 200; the failure goes in-band, saying as much.
  if (response.headersSent) draft.httpStatus = 200;
  if (response.headersSent && streamRenderer) {
    response.end(streamRenderer.error({ kind: final.code, message, requestId: draft.id, attempts }));
    return;
  }
  const headers = retryHeaders(final.retryAfterMs);
  const text = sendJson(response, final.status, body, headers);
  storeForReplay(context.idempotency, final.status, headers, { body: text }, deps);
}

/** Keeps a finished answer for replay under its idempotency key, when it is worth replaying. */
function storeForReplay(
  idempotency: IdempotencyClaim | undefined,
  status: number,
  headers: Record<string, string>,
  content: { body: string } | { sse: string },
  deps: Pick<ServingDeps, 'idempotency'>,
): void {
  if (!idempotency || !isReplayable(status)) return;
  deps.idempotency.complete(idempotency.entry, { status, headers, ...content });
  idempotency.completed = true;
}
