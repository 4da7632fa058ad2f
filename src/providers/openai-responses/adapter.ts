import type { ProviderAdapter } from '../spec.js';
import { parseOpenAiError } from '../openai/parse-error.js';
import { buildOpenAiResponsesRequest, relayOpenAiResponsesRequest, type ResponsesRequestOptions } from './build-request.js';
import { parseOpenAiResponsesResponse } from './parse-response.js';
import { OpenAiResponsesStreamParser } from './parse-stream.js';

/**
 * The OpenAI Responses API (`POST {base_url}/responses`): what an OpenAI or Azure OpenAI target
 * answers a Responses caller on. Its HTTP errors are OpenAI's, in the same envelope as Chat
 * Completions'.
 */
export function createOpenAiResponsesAdapter(options: ResponsesRequestOptions): ProviderAdapter {
  return {
    dialect: 'openai-responses',
    framing: 'sse',
    buildRequest: (request, target) => buildOpenAiResponsesRequest(request, target, options),
    relay: (body, request, target) => relayOpenAiResponsesRequest(body, request, target, options),
    parseResponse: parseOpenAiResponsesResponse,
    createStreamParser: () => new OpenAiResponsesStreamParser(),
    parseError: parseOpenAiError,
  };
}
