import type { IncomingMessage, ServerResponse } from 'node:http';
import { admitRequest, settleAdmission, type AdmissionDeps, type AdmissionHandle } from '../admission/admit-request.js';
import { estimateInputTokens } from '../admission/token-estimator.js';
import { chatOperation, type ChatAnswer } from '../engine/chat-operation.js';
import { runRoute, type EngineDeps, type Served } from '../engine/run-route.js';
import { knownSecrets } from '../config/known-secrets.js';
import { AllAttemptsFailedError } from '../errors/all-attempts-failed-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import { idempotencyKeyOf, upstreamIdempotencyKey } from '../idempotency/idempotency-key-header.js';
import { bodyHash, isReplayable, type IdempotencyEntry, type IdempotencyStore } from '../idempotency/idempotency-store.js';
import { RecordingSseRenderer } from './recording-sse-renderer.js';
import { sendReplay } from './send-replay.js';
import type { Principal } from '../keys/authenticate.js';
import { secretRedactor } from '../records/redact-secrets.js';
import type { RecordDraft } from '../records/record-draft.js';
import type { ResolvedRoute } from '../routing/resolve-route.js';
import type { ChatRequest } from '../providers/spec.js';
import { Heartbeat } from './heartbeat.js';
import { callerCancellation } from './caller-cancellation.js';
import { failureBody } from './failure-body.js';
import type { CallerDialect } from '../dialects/caller-dialect.js';
import { openGate, type GateDeps } from './open-gate.js';
import { retryHeaders, sendJson, servedHeaders } from './send.js';
import { writeSse } from './write-sse.js';

/** A replayable stream is kept up to this size; a longer one is answered but not stored. */
const MAX_STORED_STREAM_CHARS = 4 * 1024 * 1024;

export interface ChatHandlerDeps extends AdmissionDeps, GateDeps {
  dialect: CallerDialect;
  engine: EngineDeps;
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
  trace: RecordDraft,
  deps: ChatHandlerDeps,
): Promise<void> {
  const { config, principal, bodyText, parsed, route, deadlineAtMs } = await openGate(request, trace, deps, deps.dialect.parse);
  const { requestedModel, request: chat } = parsed;

  const idempotency = claimIdempotencyKey(request, response, bodyText, principal, trace, deps);
  if (idempotency === 'answered') return;
  let admission: AdmissionHandle = {};
  try {
    admission = await admitRequest(
      principal,
      { inputTokens: () => estimateInputTokens(chat), maxOutputTokens: chat.maxOutputTokens },
      route,
      { config, nowMs: trace.startedAtMs },
      deps,
    );
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
 * With an `Idempotency-Key` (docs/lifecycle.md): a finished twin is replayed here without a new generation;
 * one still running is a 409 with `retry-after`; the same key with another body is a 422.
 */
function claimIdempotencyKey(
  request: IncomingMessage,
  response: ServerResponse,
  bodyText: string,
  principal: Principal,
  trace: RecordDraft,
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
  route: ResolvedRoute;
  deadlineAtMs: number;
  idempotency: IdempotencyClaim | undefined;
  requestedModel: string;
}

async function serveChat(response: ServerResponse, trace: RecordDraft, plan: ChatPlan, deps: ChatHandlerDeps): Promise<void> {
  const { chat, route, idempotency } = plan;
  const caller = callerCancellation(response);
  // A stream waiting long for its first content keeps the caller's connection alive meanwhile.
  const heartbeat = chat.stream ? new Heartbeat(response, route.policy.timeouts.heartbeat_ms) : undefined;
  const writer = deps.dialect.streamRenderer({
    fallbackId: trace.id,
    model: plan.requestedModel,
    includeUsage: chat.includeUsage,
    estimateInputTokens: () => estimateInputTokens(chat),
  });

  let outcome: Served<ChatAnswer>;
  try {
    outcome = await runRoute(
      {
        route,
        caller,
        requestStartedAtMs: trace.startedAtMs,
        deadlineAtMs: plan.deadlineAtMs,
        waited: trace.waited,
        ...(idempotency ? { upstreamIdempotencyKey: idempotency.upstreamKey } : {}),
      },
      chatOperation(chat, route.policy.commit),
      deps.engine,
    );
  } catch (error) {
    heartbeat?.stop();
    if (!(error instanceof AllAttemptsFailedError)) throw error;
    trace.attempts = error.attempts;
    if (caller.aborted) {
      trace.fail('cancelled', 499, 'cancelled');
      return;
    }
    const { final, body, attempts } = failureBody(error, trace, deps.config(), deps.dialect);
    // After a heartbeat the caller already has a 200; the failure goes in-band, saying as much.
    trace.fail('failed', response.headersSent ? 200 : final.status, final.code, final.message);
    if (response.headersSent) {
      response.end(writer.error({ kind: final.code, message: final.message, requestId: trace.id, attempts }));
      return;
    }
    const headers = retryHeaders(final.retryAfterMs);
    const text = sendJson(response, final.status, body, headers);
    storeForReplay(idempotency, final.status, headers, { body: text }, deps);
    return;
  }

  trace.attempts = outcome.attempts;
  trace.served = outcome.served;
  const redact = secretRedactor(knownSecrets(deps.config()));
  const headers = servedHeaders(outcome.served, outcome.attempts.length, redact);
  const { answer } = outcome;
  if ('result' in answer) {
    trace.firstTokenAtMs = Date.now();
    const text = sendJson(response, 200, deps.dialect.renderResult(answer.result, trace.id), headers);
    storeForReplay(idempotency, 200, headers, { body: text }, deps);
    return;
  }
  heartbeat?.stop();
  const recorder = idempotency ? new RecordingSseRenderer(writer, MAX_STORED_STREAM_CHARS) : undefined;
  const ended = await writeSse(response, headers, answer.events, recorder ?? writer, {
    onFirstWrite: () => {
      trace.firstTokenAtMs ??= Date.now();
    },
    redact,
  });
  if (ended === 'interrupted') trace.fail('interrupted', 200, 'stream_interrupted', trace.attempts.at(-1)?.message ?? null);
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
