import type { CommitPolicy, TimeoutsConfig } from '../config/schema.js';
import { applyCredentials } from '../credentials/apply-credentials.js';
import { estimateTokens, requestCharacters } from '../metering/estimate-tokens.js';
import {
  ProviderFailure,
  type ChatRequest,
  type ChatResult,
  type ProviderAdapter,
  type ProviderError,
  type ResponseHeaders,
  type StreamEvent,
  type UpstreamRequest,
} from '../providers/spec.js';
import type { ResolvedTarget } from '../routing/resolve-route.js';
import { createFrameDecoder } from '../streaming/frame-decoder.js';
import { readEventBatches } from '../streaming/read-event-batches.js';
import type { Transport, UpstreamResponse } from '../transport/send-upstream.js';
import { AttemptContext } from './attempt-context.js';
import { errorCode } from './classify-transport-error.js';
import type { AttemptRecord } from './attempt-record.js';
import { forwardCommitted } from './forward-committed.js';
import { readToCommitPoint } from './read-to-commit-point.js';

export interface AttemptInput {
  n: number;
  target: ResolvedTarget;
  adapter: ProviderAdapter;
  baseUrl: string;
  request: ChatRequest;
  timeouts: TimeoutsConfig;
  commit: CommitPolicy;
  callerSignal: AbortSignal;
  deadlineAtMs: number;
  requestStartedAtMs: number;
  transport: Transport;
  /** Hears the attempt's final record once it has really ended (a stream: when it ends). */
  onSettled?: (record: AttemptRecord) => void;
  /** Hears the upstream's response headers (rate-limit headers come on successes too). */
  onHeaders?: (headers: ResponseHeaders) => void;
  idempotencyKey?: string;
}

export type AttemptOutcome =
  | { ok: true; record: AttemptRecord; result: ChatResult }
  /** A committed stream, in batches: the first holds what was read up to the commit point. */
  | { ok: true; record: AttemptRecord; events: AsyncIterable<StreamEvent[]> }
  | { ok: false; record: AttemptRecord; error: ProviderError };

/**
 * One physical attempt against one target: translate afresh from the untouched request, sign,
 * send, and classify. For streams it reads up to the commit point; any failure before it is a
 * failed attempt, and nothing has reached the caller.
 */
export async function runAttempt(input: AttemptInput): Promise<AttemptOutcome> {
  const startedAtMs = Date.now();
  const context = new AttemptContext(
    {
      n: input.n,
      connection: input.target.connectionName,
      provider: input.target.connection.provider,
      model: input.target.routedModel,
      kind: 'ok',
      startedMs: startedAtMs - input.requestStartedAtMs,
      latencyMs: 0,
      committed: false,
      malformedEvents: 0,
    },
    { callerSignal: input.callerSignal, startedAtMs, deadlineAtMs: input.deadlineAtMs, onSettled: input.onSettled },
  );
  const { record } = context;

  let response: UpstreamResponse;
  try {
    const upstream = applyCredentials(
      input.adapter.buildRequest(input.request, { baseUrl: input.baseUrl, routedModel: input.target.routedModel }),
      input.target.connection,
    );
    if (input.idempotencyKey !== undefined) upstream.headers['idempotency-key'] = input.idempotencyKey;
    // Streams: content must start within first_token_ms. Non-streamed answers come whole, so
    // their headers must (SPEC §5: no headers in time is a timeout that fails over).
    context.timer.arm('first_token', input.timeouts.first_token_ms);
    response = await sendToFirstReachableHost(upstream, input, context);
  } catch (error) {
    return context.fail(error instanceof ProviderFailure ? error.error : context.classify(error));
  }
  record.httpStatus = response.statusCode;
  input.onHeaders?.(response.headers);

  try {
    if (response.statusCode >= 300) {
      const body = await response.body.text();
      return context.fail({ ...input.adapter.parseError(response.statusCode, response.headers, body, Date.now()), status: response.statusCode });
    }
    if (!input.request.stream) {
      context.timer.arm('idle', input.timeouts.idle_ms);
      const result = input.adapter.parseResponse(await response.body.json());
      if (result.finishReason === 'content_filter' && result.text === '' && result.toolCalls.length === 0) {
        return context.fail({ kind: 'moderation', code: 'content_filter', message: 'the provider refused to answer (content filter)' });
      }
      Object.assign(record, { latencyMs: Date.now() - startedAtMs, usage: result.usage, committed: true });
      context.release(true);
      return { ok: true, record, result };
    }
  } catch (error) {
    return context.fail(error instanceof ProviderFailure ? error.error : context.classify(error));
  }

  const batches = readEventBatches(response.body, createFrameDecoder(input.adapter.framing), input.adapter.createStreamParser());
  const estimateInputTokens = () => estimateTokens(requestCharacters(input.request));
  const ready = await readToCommitPoint(batches, context, { commit: input.commit, timeouts: input.timeouts, estimateInputTokens });
  if (!('held' in ready)) {
    void batches.return();
    return context.fail(ready);
  }
  const events = forwardCommitted(ready, batches, context, { estimateInputTokens });
  return { ok: true, record, events };
}

/**
 * Sends to the connection's base URL, and when that host cannot be reached at all, to each of its
 * `alternate_hosts` in turn (same key, same request): inside one attempt, no retry spent.
 */
async function sendToFirstReachableHost(upstream: UpstreamRequest, input: AttemptInput, context: AttemptContext): Promise<UpstreamResponse> {
  const hosts = input.target.connection.alternate_hosts;
  for (let index = 0; ; index++) {
    try {
      return await input.transport.send(upstream, { signal: context.signal, connectTimeoutMs: input.timeouts.connect_ms });
    } catch (error) {
      const alternate = hosts[index];
      if (alternate === undefined || context.signal.aborted || !isUnreachable(error)) throw error;
      upstream = { ...upstream, url: alternate.replace(/\/+$/, '') + upstream.url.slice(input.baseUrl.replace(/\/+$/, '').length) };
    }
  }
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** The host could not be reached at all: nothing was sent, so another host can take the request. */
function isUnreachable(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && UNREACHABLE_CODES.has(code);
}
