import type { IncomingHttpHeaders } from 'node:http';
import type { ChatRequest, ChatResult, StreamEvent, UpstreamDialect } from '../providers/spec.js';
import type { StreamError } from './shared/final-error-fields.js';

/** A caller's chat body, parsed: the model it asked for and the canonical request. */
export interface ParsedChat {
  requestedModel: string;
  request: ChatRequest;
  /** Tool types no attempt can take (hosted tools for translated targets), named in `x-switchyard-dropped-tools`. */
  droppedTools?: string[];
  /** The request's settings the dialect's answer repeats (a Responses object echoes them). */
  echo?: Readonly<Record<string, unknown>>;
}

/** Turns a committed stream's events into the caller's SSE frames. */
export interface SseRenderer {
  write(event: StreamEvent): string;
  end(): string;
}

/** An error as the caller's dialect spells it, with the gateway's extras (request id, attempts). */
export interface ErrorEnvelope {
  status: number;
  code: string;
  type: string;
  message: string;
  param?: string | null;
  requestId: string;
  attempts?: readonly Record<string, unknown>[];
}

export interface StreamRenderer extends SseRenderer {
  /** The in-band error frame the dialect's SDKs raise on. */
  error(error: StreamError): string;
  /**
   * The whole answer `end()` will carry (a Responses `response` object), for a dialect whose
   * answers are kept: the very object `end()` sends, so a change made to it before shows there.
   */
  finalAnswer?(): Record<string, unknown>;
  /** A relayed frame as the caller gets it, for a dialect that edits one (the Responses API names its answers itself). */
  relayedFrame?(text: string): string;
}

export interface StreamRendererOptions {
  fallbackId: string;
  model: string;
  includeUsage: boolean;
  /** The gateway's input-token estimate, for a stream whose upstream reports input only at the end. */
  estimateInputTokens: () => number;
  echo?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * What differs between the caller dialects — parsing, rendering answers, streams and errors —
 * and nothing else: one handler and one engine serve them all (README.md, HTTP API).
 */
export interface CallerDialect {
  /** For idempotency scopes: the same key on two endpoints is two keys. */
  endpoint: string;
  /** The record's `operation`; unset for chat. */
  operation?: 'responses';
  /** The upstream wire format that is this dialect's own: a target speaking it is relayed the caller's body (`ChatRequest.callerBody`). */
  relaysTo?: UpstreamDialect;
  /** Response headers that carry the request id (`x-request-id` always). */
  requestIdHeaders: readonly string[];
  parse(body: unknown, headers: IncomingHttpHeaders): ParsedChat;
  renderResult(result: ChatResult, fallbackId: string, echo?: Readonly<Record<string, unknown>>): unknown;
  /** A relayed body as the caller gets it, for a dialect that edits one (the Responses API names its answers itself). */
  relayedResult?(text: string, fallbackId: string): string;
  streamRenderer(options: StreamRendererOptions): StreamRenderer;
  errorBody(error: ErrorEnvelope): unknown;
}

