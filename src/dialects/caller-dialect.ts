import type { IncomingHttpHeaders } from 'node:http';
import type { ParsedChat } from './openai-chat/parse-openai-chat.js';
import { parseOpenAiChat } from './openai-chat/parse-openai-chat.js';
import { parseAnthropicMessages } from './anthropic-messages/parse-anthropic-messages.js';
import { AnthropicStreamWriter } from './anthropic-messages/anthropic-stream-writer.js';
import type { StreamError } from './shared/final-error-fields.js';
import { OpenAiStreamWriter } from './openai-chat/openai-stream-writer.js';
import { renderAnthropicMessage } from './anthropic-messages/render-anthropic-message.js';
import { renderOpenAiChat } from './openai-chat/render-openai-chat.js';
import type { ChatResult } from '../providers/spec.js';
import type { SseRenderer } from '../http/write-sse.js';

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
}

export interface StreamRendererOptions {
  fallbackId: string;
  model: string;
  includeUsage: boolean;
  /** The gateway's input-token estimate, for a stream whose upstream reports input only at the end. */
  estimateInputTokens: () => number;
}

/**
 * What differs between the inbound dialects — parsing, rendering answers, streams and errors —
 * and nothing else: one handler and one engine serve both (README.md, HTTP API).
 */
export interface InboundDialect {
  /** For idempotency scopes: the same key on two endpoints is two keys. */
  endpoint: string;
  /** Response headers that carry the request id (`x-request-id` always). */
  requestIdHeaders: readonly string[];
  parse(body: unknown, headers: IncomingHttpHeaders): ParsedChat;
  renderResult(result: ChatResult, fallbackId: string): unknown;
  streamRenderer(options: StreamRendererOptions): StreamRenderer;
  errorBody(error: ErrorEnvelope): unknown;
}

export const OPENAI_CHAT: InboundDialect = {
  endpoint: 'POST /v1/chat/completions',
  requestIdHeaders: ['x-request-id'],
  parse: parseOpenAiChat,
  renderResult: (result, fallbackId) => renderOpenAiChat(result, `chatcmpl-${fallbackId}`),
  streamRenderer: (options) =>
    new OpenAiStreamWriter({ model: options.model, includeUsage: options.includeUsage, fallbackId: `chatcmpl-${options.fallbackId}` }),
  errorBody: (error) => ({
    error: {
      message: error.message,
      type: error.type,
      param: error.param ?? null,
      code: error.code,
      request_id: error.requestId,
      ...(error.attempts ? { attempts: error.attempts } : {}),
    },
  }),
};

/** Anthropic's error `type` for an HTTP status (its SDKs pick the exception class from these). */
const ANTHROPIC_ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
  503: 'overloaded_error',
  529: 'overloaded_error',
};

export const ANTHROPIC_MESSAGES: InboundDialect = {
  endpoint: 'POST /v1/messages',
  // The Anthropic SDKs read `request-id` (their `_request_id`), as Anthropic's own API sends it.
  requestIdHeaders: ['x-request-id', 'request-id'],
  parse: parseAnthropicMessages,
  renderResult: (result, fallbackId) => renderAnthropicMessage(result, { fallbackId }),
  streamRenderer: (options) => new AnthropicStreamWriter(options),
  errorBody: (error) => ({
    type: 'error',
    error: {
      type: ANTHROPIC_ERROR_TYPES[error.status] ?? (error.status >= 500 ? 'api_error' : 'invalid_request_error'),
      message: error.message,
      code: error.code,
      ...(error.attempts ? { attempts: error.attempts } : {}),
    },
    request_id: error.requestId,
  }),
};
