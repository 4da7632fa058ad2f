import type { UpstreamDialect } from '../providers/spec.js';
import type { CacheUsage, FinishDirective, Faults, InbandErrorKind } from './directives.js';
import type { MockThinking } from './thinking-signatures.js';
import type { MockToolCall } from './tool-call.js';

/** Everything a dialect needs to render one successful answer. */
export interface AnswerPlan {
  /** The attempt number; ids are derived from it. */
  n: number;
  /** The model to report: the requested model without its directives. */
  name: string;
  createdS: number;
  /** Prompt tokens counted from the request's text that were neither read from the cache nor written to it (`cache`). */
  inputTokens: number;
  cache: CacheUsage;
  /** Content pieces: text chunks, or the argument fragments of a tool call; also the output tokens. */
  pieceCount: number;
  /**
   * The pieces when they are not the standard `w0 w1 …` text (a degraded answer, JSON that fits
   * the request's schema, or a tool call's argument fragments, which join to its arguments);
   * `pieceCount` is then their number.
   */
  pieces?: readonly string[];
  toolCall?: MockToolCall;
  finish?: FinishDirective;
  /** OpenAI `stream_options.include_usage`; the other formats always report usage. */
  includeUsage: boolean;
  /** The signed thinking a Claude answer starts with, when the request turned thinking on (./thinking-signatures.ts). */
  thinking?: MockThinking;
}

/** Part of a stream as written to the socket: SSE text, or binary AWS event-stream messages. */
export type Frame = string | Uint8Array;

/** A stream as pre-serialised frames, to be played (and interrupted) by the stream player. */
export interface StreamFrames {
  /** Everything before the first content piece (role chunk, message_start … ping, messageStart); may be empty. */
  head: Frame;
  /**
   * Pieces in this stream, where faults can strike between them. Usually the plan's pieceCount;
   * 0 for a Gemini tool call, which arrives whole in the finishing chunk.
   */
  pieceCount: number;
  piece(index: number): Frame;
  /** Finish and usage after all pieces; `terminate` adds the last word (`[DONE]`, `message_stop`, …). */
  tail(terminate: boolean): Frame;
}

/** What `status=`, `error=`, `retry_after=` and `retry_after_ms=` ask of an error answer. */
export type ErrorFaults = Pick<Faults, 'status' | 'errorName' | 'retryAfterS' | 'retryAfterMs'>;

export interface ErrorAnswer {
  status: number;
  body: string;
  /** Headers the format puts on its errors: `retry-after`, Bedrock's `x-amzn-errortype`. */
  headers: Record<string, string>;
  /** Only when not JSON: a Gemini prompt block on the streaming endpoint is an SSE chunk. */
  contentType?: string;
}

export interface WireFormat {
  readonly dialect: UpstreamDialect;
  /** The response header carrying the request id; Gemini sends none. */
  readonly requestIdHeader?: string;
  readonly streamContentType: string;
  /** An event whose data is not JSON, as a broken proxy would deliver it. */
  readonly malformedFrame: Frame;
  completion(plan: AnswerPlan): string;
  stream(plan: AnswerPlan): StreamFrames;
  inbandError(kind: InbandErrorKind): Frame;
  /** The error for `status=` and/or `error=`; a name sets the status unless one is given. */
  error(faults: ErrorFaults, request: { model: string; stream: boolean }): ErrorAnswer;
  /** A 400 for a request the mock cannot serve (bad JSON, bad directive). */
  invalidRequest(message: string): ErrorAnswer;
  /** The provider's refusal of a body it does not take (Claude on Vertex: `model`, `anthropic_version`); absent where any JSON object goes. */
  refuseBody?(fields: Record<string, unknown>): ErrorAnswer | undefined;
  /** Absent where the provider sends no rate-limit headers (Gemini, Bedrock). */
  rateLimitHeaders?(limit: number, remaining: number, resetS: number, nowMs: number): Record<string, string>;
}
