import type { ProviderAdapter } from '../spec.js';
import { buildAnthropicRequest, relayAnthropicRequest } from './build-request.js';
import { parseAnthropicError } from './parse-error.js';
import { parseAnthropicResponse } from './parse-response.js';
import { AnthropicStreamParser } from './parse-stream.js';

export { ANTHROPIC_DEFAULT_MAX_TOKENS } from './build-request.js';

/** The Anthropic Messages API adapter. */
export const anthropicAdapter: ProviderAdapter = {
  dialect: 'anthropic',
  framing: 'sse',
  buildRequest: buildAnthropicRequest,
  relay: relayAnthropicRequest,
  parseResponse: parseAnthropicResponse,
  createStreamParser: () => new AnthropicStreamParser(),
  parseError: parseAnthropicError,
};
