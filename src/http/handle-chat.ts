import type { IncomingMessage, ServerResponse } from 'node:http';
import { admitRequest, settleAdmission, type AdmissionDeps, type AdmissionHandle } from '../admission/admit-request.js';
import type { Config } from '../config/schema.js';
import { knownSecrets } from '../config/known-secrets.js';
import { deadlineFromHeaders } from '../engine/deadline.js';
import { finalError } from '../engine/final-error.js';
import { routeLabel, runChat, type ChatOutcome, type EngineDeps } from '../engine/run-chat.js';
import type { AttemptRecord } from '../engine/attempt-record.js';
import { AllAttemptsFailedError } from '../errors/all-attempts-failed-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import { idempotencyKeyOf, upstreamIdempotencyKey } from '../idempotency/idempotency-key-header.js';
import { bodyHash, isReplayable, type IdempotencyEntry, type IdempotencyStore } from '../idempotency/idempotency-store.js';
import { RecordingSseRenderer } from '../idempotency/recording-sse-renderer.js';
import { sendReplay } from '../idempotency/send-replay.js';
import { authenticateRequest, authorizeRoute, type Principal } from '../keys/authenticate.js';
import type { KeyCache } from '../keys/key-cache.js';
import { redactSecrets } from '../records/redact-secrets.js';
import type { RequestTrace } from '../records/request-trace.js';
import { resolveRoute, type ResolvedTarget } from '../routing/resolve-route.js';
import type { Metrics } from '../telemetry/metrics.js';
import type { ChatRequest } from '../providers/spec.js';
import { Heartbeat } from './heartbeat.js';
import type { InboundDialect } from './inbound-dialect.js';
import { readJsonBody } from './read-json-body.js';
import { retryHeaders, sendJson } from './send.js';
import { writeSse } from './write-sse.js';

/** A replayable stream is kept up to this size; a longer one is answered but not stored. */
const MAX_STORED_STREAM_CHARS = 4 * 1024 * 1024;

export interface ChatHandlerDeps extends AdmissionDeps {
  dialect: InboundDialect;
  config(): Config;
  engine: EngineDeps;
  metrics: Metrics;
  keys: KeyCache;
  idempotency: IdempotencyStore;
}

/**
 * `POST /v1/chat/completions` and `POST /v1/messages` (the dialect decides parsing and
 * rendering only): the synchronous gate (key, route, idempotency, limits, budget —
 * all before any provider), then the attempt loop, rendered in the caller's dialect. Whatever
 * happens, the admission is settled and an unfinished idempotency claim released in `finally`;
 * everything learned goes into `trace`, which becomes the request's record.
 */
export async function handleChat(
  request: IncomingMessage,
  response: ServerResponse,
  trace: RequestTrace,
  deps: ChatHandlerDeps,
): Promise<void> {
  const config = deps.config();
  // Who is asking is settled before anything else is read: a refused caller costs nothing.
  const principal = await authenticateRequest(request.headers, { mode: config.auth.mode, keys: deps.keys, nowMs: trace.startedAtMs });
  if (principal.kind === 'key') {
    trace.keyName = principal.key.name;
    trace.keyId = principal.key.id;
  }
  const body = await readJsonBody(request, config.server.max_body_bytes);
  const { requestedModel, request: chat } = deps.dialect.parse(body.json);
  trace.modelRequested = requestedModel;
  trace.stream = chat.stream;
  const route = resolveRoute(config, requestedModel);
  trace.route = route.name;
  trace.routeLabel = routeLabel(route);
  authorizeRoute(principal, route.name);
  const deadlineAtMs = deadlineFromHeaders(request.headers, route.policy.timeouts.total_ms, trace.startedAtMs);
  trace.deadlineAtMs = deadlineAtMs;
  if (Number(request.headers['x-stainless-retry-count']) > 0) deps.metrics.callerRetries.inc({ route: trace.routeLabel });

  const idempotency = claimIdempotencyKey(request, response, body.text, principal, trace, deps);
  if (idempotency === 'answered') return;
  let admission: AdmissionHandle = {};
  try {
    admission = await admitRequest(principal, chat, route, { config, nowMs: trace.startedAtMs }, deps);
    await serveChat(response, trace, { chat, route, deadlineAtMs, idempotency, requestedModel }, deps);
  } finally {
    settleAdmission(admission, trace.attempts, { config: deps.config(), route: trace.route }, deps);
    if (idempotency && !idempotency.completed) deps.idempotency.abandon(idempotency.entry);
  }
}

interface IdempotencyClaim {
  entry: IdempotencyEntry;
  upstreamKey: string;
  completed: boolean;
}

/**
 * With an `Idempotency-Key` (SPEC §6): a finished twin is replayed here without a new generation;
 * one still running is a 409 with `retry-after`; the same key with another body is a 422.
 */
function claimIdempotencyKey(
  request: IncomingMessage,
  response: ServerResponse,
  bodyText: string,
  principal: Principal,
  trace: RequestTrace,
  deps: ChatHandlerDeps,
): IdempotencyClaim | 'answered' | undefined {
  const key = idempotencyKeyOf(request.headers);
  if (key === undefined) return undefined;
  trace.idempotencyKey = key;
  const scope = `${principal.kind === 'key' ? principal.key.id : 'anonymous'} ${deps.dialect.endpoint}`;
  const begun = deps.idempotency.begin({ key, scope, bodyHash: bodyHash(bodyText), nowMs: trace.startedAtMs });
  switch (begun.state) {
    case 'done':
      trace.replayed = true;
      trace.httpStatus = begun.stored.status;
      sendReplay(response, begun.stored);
      return 'answered';
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

interface ChatPlan {
  chat: ChatRequest;
  route: ReturnType<typeof resolveRoute>;
  deadlineAtMs: number;
  idempotency: IdempotencyClaim | undefined;
  requestedModel: string;
}

async function serveChat(response: ServerResponse, trace: RequestTrace, plan: ChatPlan, deps: ChatHandlerDeps): Promise<void> {
  const { chat, route, idempotency } = plan;
  const caller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) caller.abort();
  });
  // A stream waiting long for its first content keeps the caller's connection alive meanwhile.
  const heartbeat = chat.stream ? new Heartbeat(response, route.policy.timeouts.heartbeat_ms) : undefined;
  const writer = deps.dialect.streamRenderer({ fallbackId: trace.id, model: plan.requestedModel, includeUsage: chat.includeUsage });

  let outcome: ChatOutcome;
  try {
    outcome = await runChat(
      {
        request: chat,
        route,
        callerSignal: caller.signal,
        requestStartedAtMs: trace.startedAtMs,
        deadlineAtMs: plan.deadlineAtMs,
        waited: trace.waited,
        ...(idempotency ? { upstreamIdempotencyKey: idempotency.upstreamKey } : {}),
      },
      deps.engine,
    );
  } catch (error) {
    heartbeat?.stop();
    if (!(error instanceof AllAttemptsFailedError)) throw error;
    trace.attempts = error.attempts;
    if (caller.signal.aborted) {
      trace.fail('cancelled', 499, 'cancelled');
      return;
    }
    const final = finalError(error.attempts, error.coolingEndsInMs);
    // After a heartbeat the caller already has a 200; the failure goes in-band.
    trace.fail('failed', response.headersSent ? 200 : final.status, final.code);
    const secrets = knownSecrets(deps.config());
    const errorBody = deps.dialect.errorBody({
      status: final.status,
      code: final.code,
      type: final.type,
      message: final.message,
      requestId: trace.id,
      attempts: error.attempts.map((attempt) => describeAttempt(attempt, secrets)),
    });
    if (response.headersSent) {
      response.end(writer.error({ kind: final.code, message: final.message }));
      return;
    }
    const headers = retryHeaders(final.retryAfterMs);
    const text = sendJson(response, final.status, errorBody, headers);
    storeForReplay(idempotency, final.status, headers, { body: text }, deps);
    return;
  }

  trace.attempts = outcome.attempts;
  trace.served = outcome.served;
  const headers = servedHeaders(outcome.served, outcome.attempts.length);
  if (outcome.type === 'result') {
    trace.firstTokenAtMs = Date.now();
    const text = sendJson(response, 200, deps.dialect.renderResult(outcome.result, trace.id), headers);
    storeForReplay(idempotency, 200, headers, { body: text }, deps);
    return;
  }
  heartbeat?.stop();
  const recorder = idempotency ? new RecordingSseRenderer(writer, MAX_STORED_STREAM_CHARS) : undefined;
  const ended = await writeSse(response, headers, outcome.events, recorder ?? writer, () => {
    trace.firstTokenAtMs ??= Date.now();
  });
  if (ended === 'interrupted') trace.fail('interrupted', 200, 'stream_interrupted');
  else if (ended === 'cancelled') trace.fail('cancelled', 499, 'cancelled');
  else {
    const sse = recorder?.text();
    if (sse !== undefined) storeForReplay(idempotency, 200, headers, { sse }, deps);
  }
}

/** Keeps a finished answer for replay under its idempotency key, when it is worth replaying. */
function storeForReplay(
  idempotency: IdempotencyClaim | undefined,
  status: number,
  headers: Record<string, string>,
  content: { body: string } | { sse: string },
  deps: ChatHandlerDeps,
): void {
  if (!idempotency || !isReplayable(status)) return;
  deps.idempotency.complete(idempotency.entry, { status, headers, ...content });
  idempotency.completed = true;
}

function servedHeaders(served: ResolvedTarget, attempts: number): Record<string, string> {
  return {
    'x-switchyard-served-by': `${served.connectionName}/${served.routedModel}`,
    'x-switchyard-attempts': String(attempts),
  };
}

function describeAttempt(attempt: AttemptRecord, secrets: ReadonlySet<string>): Record<string, unknown> {
  return {
    n: attempt.n,
    target: `${attempt.connection}/${attempt.model}`,
    kind: attempt.kind,
    status: attempt.httpStatus ?? null,
    latency_ms: attempt.latencyMs,
    ...(attempt.message === undefined ? {} : { message: redactSecrets(attempt.message, secrets) }),
  };
}
