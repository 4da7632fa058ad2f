import type { Config } from '../config/schema.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import type { Cancellation } from '../core/cancellation.js';
import type { StreamRenderer } from '../dialects/caller-dialect.js';
import type { FinalError } from '../engine/final-error.js';
import type { ReplyInFlight } from '../http/gateway-response.js';
import type { StoredResponse } from '../idempotency/idempotency-store.js';
import type { StreamEvent } from '../providers/spec.js';
import type { Redact } from '../records/redact-secrets.js';
import type { IdempotencyClaim } from './request-context.js';

/** How a streamed answer ended: whole, cut short (a provider's error, a shutdown), or left by its caller. */
export type StreamEnd = 'complete' | 'interrupted' | 'cancelled';

/** What the answer about to be awaited needs of its reply. */
export interface AnswerPlan {
  /** The caller's stream renderer, for a streamed request; undefined when it asked for one JSON body. */
  renderer: StreamRenderer | undefined;
  /** How long a stream waits for its first content before its reply keeps the connection alive. */
  heartbeatMs: number;
  /** The `Idempotency-Key` the answer is kept for replay under, if the request holds one. */
  idempotency: IdempotencyClaim | undefined;
}

export interface StreamOptions {
  /** Runs once, when the first content goes out (or the stream ends without any). */
  onFirstWrite: () => void;
  /** Applied to a provider's error message on its way to the caller. */
  redact: Redact;
  /** Keeps the answer a complete stream ends with (its renderer's `finalAnswer`) before its last frame, which waits for it. */
  keepAnswer?: (answer: Record<string, unknown>) => Promise<void>;
  /** The stream is relayed: its frames go out as the provider sent them (`relayRenderer`). */
  relayed?: true;
}

/**
 * The one owner of what an inference request sends its caller, made once per request, whatever
 * the transport: the status and headers, the answer (one JSON body or a stream, with its
 * heartbeat), the error body of a refusal or of a request whose every attempt failed, the copy
 * kept for idempotent replay, the replay itself, and the cut when a shutdown's drain time runs
 * out. It remembers what it sent, which the request's record reads at the end.
 */
export interface CallerReply extends ReplyInFlight {
  /** Aborts when the caller goes away before its answer is finished, or the shutdown cuts it. */
  readonly caller: Cancellation;
  /** The status the caller was sent; undefined while nothing has gone out. */
  readonly sentStatus: number | undefined;
  /** Every attempt failed after the answer had begun (a heartbeat's 200): the error went in-band. */
  readonly failedInBand: boolean;
  /** A shutdown's drain time ran out while this answer was under way, and cut it. */
  readonly cutAtShutdown: boolean;

  /** A header every answer past the gate carries, a final error included. */
  setHeader(name: string, value: string): void;
  /** Takes back headers set before, unless they have already gone out. */
  withdrawHeaders(names: readonly string[]): void;
  /** The request passed its gate and its answer is awaited (a stream's heartbeat starts here). */
  begin(plan: AnswerPlan): void;
  /** The answer as one JSON body. `headers` become the reply's own. */
  sendJson(status: number, body: unknown, headers: Record<string, string>): void;
  /** The answer as a stream of the upstream's event batches, in the caller's dialect. */
  stream(headers: Record<string, string>, batches: AsyncIterable<StreamEvent[]>, options: StreamOptions): Promise<StreamEnd>;
  /** Every attempt failed: the final error, as the caller's dialect spells it (nothing for a caller gone). */
  fail(final: FinalError, attempts: readonly AttemptRecord[], config: Config): void;
  /** What stopped the request before an answer: a refusal as itself, anything else as a logged 500. */
  refuse(error: unknown): void;
  /** A finished twin's stored answer, sent again. */
  replay(stored: StoredResponse): void;
}

/** What keeps a complete stream's answer before its last frame: the answer of the renderer in use (a relayed stream's is its provider's). */
export function answerKeeper(renderer: StreamRenderer, options: StreamOptions): (() => Promise<void>) | undefined {
  const { keepAnswer } = options;
  return keepAnswer && renderer.finalAnswer ? () => keepAnswer(renderer.finalAnswer!()) : undefined;
}
