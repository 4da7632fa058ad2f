import type { Dialect } from '../providers/spec.js';
import type { ErrorName, FinishDirective, InbandErrorKind } from './directives.js';

/** Everything a dialect needs to render one successful answer. */
export interface AnswerPlan {
  /** The attempt number; ids are derived from it. */
  n: number;
  /** The model to report: the requested model without its directives. */
  name: string;
  createdS: number;
  inputTokens: number;
  /** Content pieces: text chunks, or the argument fragments when `toolName` is set. */
  pieceCount: number;
  toolName?: string;
  finish?: FinishDirective;
  /** OpenAI `stream_options.include_usage`; Anthropic always reports usage. */
  includeUsage: boolean;
}

/** A stream as pre-serialised SSE text, to be played (and interrupted) by the stream player. */
export interface StreamFrames {
  /** Everything before the first content piece (role chunk, or message_start … ping). */
  head: string;
  piece(index: number): string;
  /** Finish and usage after all pieces; `terminate` adds `[DONE]` / `message_stop`. */
  tail(terminate: boolean): string;
}

export interface ErrorAnswer {
  status: number;
  body: string;
}

export interface WireFormat {
  readonly dialect: Dialect;
  /** The response header carrying the request id (`x-request-id` / `request-id`). */
  readonly requestIdHeader: string;
  /** An event whose data is not JSON, as a broken proxy would deliver it. */
  readonly malformedFrame: string;
  completion(plan: AnswerPlan): string;
  stream(plan: AnswerPlan): StreamFrames;
  inbandError(kind: InbandErrorKind): string;
  /** The error for `status=` and/or `error=`; a name sets the status unless one is given. */
  error(status: number | undefined, name: ErrorName | undefined, model: string): ErrorAnswer;
  /** A 400 body for a request the mock cannot serve (bad JSON, bad directive). */
  invalidRequest(message: string): string;
  rateLimitHeaders(limit: number, remaining: number, resetS: number, nowMs: number): Record<string, string>;
}
