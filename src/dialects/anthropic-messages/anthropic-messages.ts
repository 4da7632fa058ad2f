import type { CallerDialect } from '../caller-dialect.js';
import { AnthropicStreamWriter } from './anthropic-stream-writer.js';
import { parseAnthropicMessages } from './parse-anthropic-messages.js';
import { renderAnthropicMessage } from './render-anthropic-message.js';

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

/** Anthropic Messages, as the caller speaks it. */
export const ANTHROPIC_MESSAGES: CallerDialect = {
  endpoint: 'POST /v1/messages',
  relaysTo: 'anthropic',
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
