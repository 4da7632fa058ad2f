import type { TimeoutsConfig } from '../config/schema.js';
import { applyCredentials } from '../credentials/apply-credentials.js';
import {
  isContentEvent,
  ProviderFailure,
  type ChatRequest,
  type ChatResult,
  type ProviderAdapter,
  type ProviderError,
  type StreamEvent,
} from '../providers/spec.js';
import type { ResolvedTarget } from '../routing/resolve-route.js';
import { decodeSse } from '../streaming/decode-sse.js';
import type { Transport, UpstreamResponse } from '../transport/send-upstream.js';
import type { AttemptRecord } from './attempt-record.js';
import { AttemptTimer } from './attempt-timer.js';
import { classifyTransportError } from './classify-transport-error.js';

/** How long an upstream may keep a stream open after its finish before we end it ourselves. */
const AFTER_FINISH_GRACE_MS = 1_000;

/** The abort reason for releasing an attempt's upstream once we are done with it (made once). */
const ATTEMPT_RELEASED = new Error('attempt released');

export interface AttemptInput {
  n: number;
  target: ResolvedTarget;
  adapter: ProviderAdapter;
  baseUrl: string;
  request: ChatRequest;
  timeouts: TimeoutsConfig;
  callerSignal: AbortSignal;
  deadlineAtMs: number;
  requestStartedAtMs: number;
  transport: Transport;
}

export type AttemptOutcome =
  | { ok: true; record: AttemptRecord; result: ChatResult }
  /** A committed stream: `events` starts with what was held back before the commit point. */
  | { ok: true; record: AttemptRecord; events: AsyncIterable<StreamEvent> }
  | { ok: false; record: AttemptRecord; error: ProviderError };

/**
 * One physical attempt against one target: translate afresh from the untouched request, sign,
 * send, and classify. For streams it reads up to the commit point (the first content event);
 * any failure before it is returned as a failed attempt, and nothing has reached the caller.
 */
export async function runAttempt(input: AttemptInput): Promise<AttemptOutcome> {
  const startedAtMs = Date.now();
  const record: AttemptRecord = {
    n: input.n,
    connection: input.target.connectionName,
    provider: input.target.connection.provider,
    model: input.target.routedModel,
    kind: 'ok',
    startedMs: startedAtMs - input.requestStartedAtMs,
    latencyMs: 0,
    committed: false,
    malformedEvents: 0,
  };
  // One controller per attempt: the caller going away, a phase timeout or the deadline abort it.
  const attemptController = new AbortController();
  const signal = attemptController.signal;
  const onCallerGone = () => attemptController.abort(input.callerSignal.reason);
  input.callerSignal.addEventListener('abort', onCallerGone, { once: true });
  const timer = new AttemptTimer(attemptController, input.deadlineAtMs - startedAtMs);
  /** Stops the timers; aborts the upstream unless its response was read to the end. */
  const release = (readToEnd: boolean) => {
    timer.clear();
    input.callerSignal.removeEventListener('abort', onCallerGone);
    if (!readToEnd && !signal.aborted) attemptController.abort(ATTEMPT_RELEASED);
  };
  const fail = (error: ProviderError): AttemptOutcome => {
    release(false);
    Object.assign(record, {
      kind: error.kind,
      httpStatus: error.status,
      errorType: error.code ?? error.type,
      message: error.message,
      retryAfterMs: error.retryAfterMs,
      latencyMs: Date.now() - startedAtMs,
    });
    return { ok: false, record, error };
  };

  let response: UpstreamResponse;
  try {
    const upstream = applyCredentials(
      input.adapter.buildRequest(input.request, { baseUrl: input.baseUrl, routedModel: input.target.routedModel }),
      input.target.connection,
    );
    if (input.request.stream) timer.arm('first_token', input.timeouts.first_token_ms);
    response = await input.transport.send(upstream, { signal, connectTimeoutMs: input.timeouts.connect_ms });
  } catch (error) {
    if (error instanceof ProviderFailure) return fail(error.error);
    return fail(classifyTransportError(error, { caller: input.callerSignal, attempt: attemptController.signal }));
  }

  try {
    if (response.statusCode >= 300) {
      const body = await response.body.text();
      return fail({ ...input.adapter.parseError(response.statusCode, response.headers, body, Date.now()), status: response.statusCode });
    }
    if (!input.request.stream) {
      const result = input.adapter.parseResponse(await response.body.json());
      const refusal = moderationOf(result.finishReason, result.text === '' && result.toolCalls.length === 0);
      if (refusal) return fail({ ...refusal, status: response.statusCode });
      release(true);
      Object.assign(record, { latencyMs: Date.now() - startedAtMs, httpStatus: response.statusCode, usage: result.usage, committed: true });
      return { ok: true, record, result };
    }
  } catch (error) {
    if (error instanceof ProviderFailure) return fail({ ...error.error, status: response.statusCode });
    return fail(classifyTransportError(error, { caller: input.callerSignal, attempt: attemptController.signal }));
  }

  record.httpStatus = response.statusCode;
  const iterator = input.adapter.parseStream(decodeSse(response.body))[Symbol.asyncIterator]();
  const held: StreamEvent[] = [];
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done) {
        return fail({ kind: 'server_error', message: 'the upstream stream ended before any content' });
      }
      const event = next.value;
      if (event.type === 'malformed-event') {
        record.malformedEvents++;
        continue;
      }
      if (event.type === 'provider-error') return fail(event.error);
      if (event.type === 'finish') {
        const refusal = moderationOf(event.reason, true);
        if (refusal) return fail(refusal);
      }
      held.push(event);
      if (isContentEvent(event) || event.type === 'finish') break;
    }
  } catch (error) {
    return fail(classifyTransportError(error, { caller: input.callerSignal, attempt: attemptController.signal }));
  }

  record.firstTokenMs = Date.now() - startedAtMs;
  record.committed = true;
  const events = forwardCommitted({ held, iterator, record, timer, input, attemptController, startedAtMs, release });
  return { ok: true, record, events };
}

/** A content-filter finish with nothing generated is a refusal (SPEC §5 `moderation`). */
function moderationOf(reason: string, nothingGenerated: boolean): ProviderError | undefined {
  if (reason !== 'content_filter' || !nothingGenerated) return undefined;
  return { kind: 'moderation', code: 'content_filter', message: 'the provider refused to answer (content filter)' };
}

interface CommittedStreamState {
  held: StreamEvent[];
  iterator: AsyncIterator<StreamEvent>;
  record: AttemptRecord;
  timer: AttemptTimer;
  input: AttemptInput;
  attemptController: AbortController;
  startedAtMs: number;
  release: (readToEnd: boolean) => void;
}

/**
 * The rest of a committed stream. Past the commit point a failure cannot move to another target:
 * it ends the stream with a `stream_interrupted` provider-error, which renderers turn into the
 * dialect's error event (and no `[DONE]`).
 */
async function* forwardCommitted(state: CommittedStreamState): AsyncGenerator<StreamEvent> {
  const { record, timer, input, attemptController } = state;
  let finished = false;
  let endedAfterFinish = false;
  let readToEnd = false;
  const interrupted = (message: string): StreamEvent => {
    record.kind = 'stream_interrupted';
    record.message = message;
    return { type: 'provider-error', error: { kind: 'stream_interrupted', message } };
  };
  try {
    for (const event of state.held) {
      if (event.type === 'usage') record.usage = event.usage;
      if (event.type === 'finish') finished = true;
      yield event;
    }
    if (!finished) timer.arm('idle', input.timeouts.idle_ms);
    for (;;) {
      if (finished) {
        timer.graceThen(AFTER_FINISH_GRACE_MS, () => {
          endedAfterFinish = true;
          attemptController.abort(ATTEMPT_RELEASED);
        });
      }
      let next: IteratorResult<StreamEvent>;
      try {
        next = await state.iterator.next();
      } catch (error) {
        if (endedAfterFinish) return;
        const failure = classifyTransportError(error, { caller: input.callerSignal, attempt: attemptController.signal });
        if (failure.kind === 'cancelled') {
          record.kind = 'cancelled';
          return;
        }
        yield interrupted(`the upstream stream failed after it started: ${failure.message}`);
        return;
      }
      if (next.done) {
        readToEnd = true;
        break;
      }
      timer.touch();
      const event = next.value;
      switch (event.type) {
        case 'malformed-event':
          record.malformedEvents++;
          continue;
        case 'provider-error':
          yield interrupted(`the upstream reported an error mid-stream: ${event.error.message}`);
          return;
        case 'usage':
          record.usage = event.usage;
          break;
        case 'finish':
          finished = true;
          break;
        default:
      }
      yield event;
    }
    if (!finished) yield interrupted('the upstream stream ended before its finish');
  } finally {
    record.latencyMs = Date.now() - state.startedAtMs;
    if (!finished && record.kind === 'ok') record.kind = input.callerSignal.aborted ? 'cancelled' : 'stream_interrupted';
    state.release(readToEnd);
    if (!readToEnd) void state.iterator.return?.();
  }
}
