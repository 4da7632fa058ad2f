import type { AttemptTimeouts } from '../config/schema.js';
import { applyCredentials } from '../credentials/apply-credentials.js';
import { CredentialUnavailable } from '../credentials/credential-unavailable.js';
import type { AccessTokens } from '../credentials/google-access-tokens.js';
import {
  UpstreamFailureError,
  type ProviderAdapter,
  type UpstreamFailure,
  type TargetContext,
  type UpstreamRequest,
} from '../providers/spec.js';
import type { ResolvedTarget } from '../routing/resolve-route.js';
import type { Transport, UpstreamResponse } from '../transport/send-upstream.js';
import { AttemptContext, type AttemptObserver, type AttemptOutcome } from './attempt-context.js';
import type { Cancellation } from '../core/cancellation.js';
import { errorCode } from './classify-transport-error.js';
import type { AttemptRecord, FirstTokenSource } from '../core/attempt-record.js';

export interface AttemptInput {
  n: number;
  target: ResolvedTarget;
  adapter: ProviderAdapter;
  baseUrl: string;
  timeouts: AttemptTimeouts;
  /** Aborts when the caller goes away. */
  caller: Cancellation;
  deadlineAtMs: number;
  requestStartedAtMs: number;
  transport: Transport;
  accessTokens: AccessTokens;
  /** Hears of the attempt as it goes: for a route's attempts, the permit health gave it. */
  observer?: AttemptObserver;
  idempotencyKey?: string;
  /** Started beside a slow attempt (a route's `hedge`): its record says so. */
  hedge?: boolean;
  /** Where `timeouts.first_token_ms` came from, for the record. */
  firstTokenSource?: FirstTokenSource;
  /** Sent without the earlier turns' thinking blocks after the target refused them: its record says so. */
  thinkingDropped?: boolean;
}


/**
 * What one kind of request (a chat, embeddings) does in an attempt, around the part every kind
 * shares: translate, sign, send, classify an error status.
 */
export interface Operation<Answer> {
  /** What the caller asked for, in words for errors (`chat completions`, `embeddings`). */
  readonly name: string;
  /**
   * For a streamed answer, the request's estimated input tokens: its time to first token grows
   * with them. Absent for an answer that comes whole, which has no first token to time.
   */
  readonly streamedInputTokens?: number;
  /**
   * The request asks for reasoning (`reasoning_effort`, Responses `reasoning`, Anthropic
   * `thinking`): its first token comes after the thinking, so it is timed by reasoning samples only.
   */
  readonly asksForReasoning?: boolean;
  /** The request's estimated input tokens: what a hedge race's loser is billed once the provider had it. */
  estimateInputTokens?(): number;
  /** Lets go of an answer nobody will read (a hedge race's loser that answered too), settling its attempt. */
  discard?(answer: Answer): Promise<void>;
  /** Whether a target's adapter can serve this at all; targets that cannot are passed over. */
  accepts?(adapter: ProviderAdapter): boolean;
  /**
   * The same operation on the request without its earlier turns' thinking blocks, for a home that
   * refused a block another home signed; undefined when the request has none (or no such blocks exist).
   */
  withoutThinking?(): Operation<Answer> | undefined;
  /** The upstream request for this target, translated afresh from the untouched caller request. */
  build(adapter: ProviderAdapter, target: TargetContext): UpstreamRequest;
  /** Reads a 2xx response; throws `UpstreamFailureError` when it is really an error. */
  read(response: UpstreamResponse, context: AttemptContext, input: AttemptInput): Promise<AttemptOutcome<Answer>>;
}

/**
 * One physical attempt against one target: translate afresh from the untouched request, sign,
 * send, and classify; the operation reads the answer. Nothing reaches the caller here.
 */
export async function runAttempt<Answer>(input: AttemptInput, operation: Operation<Answer>): Promise<AttemptOutcome<Answer>> {
  const startedAtMs = Date.now();
  // Every field the attempt may come to have is in it from the start: one allocation of one
  // shape, which filling it in as the attempt goes never grows.
  const record: AttemptRecord = {
    n: input.n,
    connection: input.target.connectionName,
    provider: input.target.connection.provider,
    model: input.target.routedModel,
    kind: 'ok',
    httpStatus: undefined,
    errorType: undefined,
    message: undefined,
    retryAfterMs: undefined,
    startedMs: startedAtMs - input.requestStartedAtMs,
    latencyMs: 0,
    sentMs: undefined,
    firstTokenMs: undefined,
    firstTokenTimeoutMs: input.timeouts.first_token_ms,
    firstTokenSource: input.firstTokenSource,
    hedge: input.hedge ? true : undefined,
    thinkingDropped: input.thinkingDropped ? true : undefined,
    relay: undefined,
    committed: false,
    usage: undefined,
    malformedEvents: 0,
  };
  const context = new AttemptContext(record, { caller: input.caller, startedAtMs, deadlineAtMs: input.deadlineAtMs, observer: input.observer });

  let upstream: UpstreamRequest;
  try {
    upstream = operation.build(input.adapter, { baseUrl: input.baseUrl, routedModel: input.target.routedModel, relay: input.target.connection.relay === 'auto' });
  } catch (error) {
    return context.fail(error instanceof UpstreamFailureError ? error.error : gatewayFailure(error));
  }
  if (input.idempotencyKey !== undefined) upstream.headers['idempotency-key'] = input.idempotencyKey;
  if (upstream.relayed) context.relayed();

  let response: UpstreamResponse;
  try {
    // Streams: content must start within first_token_ms. Non-streamed answers come whole, so
    // their headers must (no headers in time is a timeout that fails over). The clock
    // starts when the request is written to the upstream: connecting has connect_ms of its own,
    // and a wait for a pooled socket is the gateway's, never the provider's.
    // When the upstream last received the request (per host tried): its silence counts from then.
    const onSent = () => {
      context.sent();
      context.timer.arm('first_token', input.timeouts.first_token_ms);
    };
    response = await sendToFirstReachableHost(upstream, input, context, onSent);
  } catch (error) {
    if (error instanceof SigningFailure) return context.fail(signingFailure(error.cause));
    if (error instanceof UpstreamFailureError) return context.fail(error.error);
    return context.fail(context.classify(error));
  }
  context.answeredWithStatus(response.statusCode);
  input.observer?.observeHeaders(response.headers);

  try {
    if (response.statusCode >= 300) {
      const body = await response.body.text();
      return context.fail({ ...input.adapter.parseError(response.statusCode, response.headers, body, Date.now()), status: response.statusCode });
    }
    return await operation.read(response, context, input);
  } catch (error) {
    return context.fail(error instanceof UpstreamFailureError ? error.error : context.classify(error));
  }
}

/**
 * Sends to the connection's base URL, and when that host cannot be reached at all, to each of its
 * `alternate_hosts` in turn (same key, same request): inside one attempt, no retry spent. The
 * credential is applied per host, since a SigV4 signature covers the host it was made for.
 */
async function sendToFirstReachableHost(unsigned: UpstreamRequest, input: AttemptInput, context: AttemptContext, onSent: () => void): Promise<UpstreamResponse> {
  const hosts = input.target.connection.alternate_hosts;
  let upstream = unsigned;
  for (let index = 0; ; index++) {
    let signed: UpstreamRequest;
    try {
      // A key header is the same for every host; a SigV4 signature is made afresh from the unsigned headers.
      signed = await applyCredentials(upstream, input.target, input.accessTokens);
    } catch (error) {
      throw new SigningFailure(error);
    }
    try {
      return await input.transport.send(signed, { cancellation: context.cancellation, connectTimeoutMs: input.timeouts.connect_ms, onSent });
    } catch (error) {
      const alternate = hosts[index];
      if (alternate === undefined || context.cancellation.aborted || !isUnreachable(error)) throw error;
      upstream = { ...unsigned, url: alternate.replace(/\/+$/, '') + unsigned.url.slice(input.baseUrl.replace(/\/+$/, '').length) };
    }
  }
}

/** Applying the connection's credential failed: the gateway's doing, nothing was sent. */
class SigningFailure extends Error {
  constructor(cause: unknown) {
    super('applying the credential failed', { cause });
  }
}

/**
 * A connection whose token cannot be had fails as its own `credential` fault (structural: it lasts
 * until the key or the endpoint is fixed); any other signing failure is the gateway's.
 */
function signingFailure(cause: unknown): UpstreamFailure {
  if (cause instanceof CredentialUnavailable) return { kind: 'credential', type: 'credential_unavailable', message: cause.message };
  return gatewayFailure(cause);
}

/**
 * A failure of the gateway's own making (a bug, a request it cannot build or sign): it says
 * nothing about the provider, which never saw the attempt, so it must not count against it.
 */
function gatewayFailure(error: unknown): UpstreamFailure {
  const cause = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { kind: 'internal_error', type: 'gateway_failure', message: `the gateway could not prepare this attempt (${cause})` };
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** The host could not be reached at all: nothing was sent, so another host can take the request. */
function isUnreachable(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && UNREACHABLE_CODES.has(code);
}
