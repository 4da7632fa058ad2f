import { parseAnthropicResponse } from '../anthropic/parse-response.js';
import { AnthropicStreamParser } from '../anthropic/parse-stream.js';
import { buildGeminiRequest } from '../gemini/build-request.js';
import { parseGeminiResponse } from '../gemini/parse-response.js';
import { GeminiStreamParser } from '../gemini/parse-stream.js';
import { joinUrl } from '../shared/join-url.js';
import type { ChatRequest, ProviderAdapter, TargetContext, UpstreamRequest } from '../spec.js';
import { buildVertexClaudeRequest } from './build-claude-request.js';
import { vertexEmbeddings } from './embeddings.js';
import { parseVertexError } from './parse-error.js';

/** Claude on Vertex (`publishers/anthropic`): the Messages API's answers, streamed as on Anthropic's API. */
export const vertexClaudeAdapter: ProviderAdapter = {
  dialect: 'anthropic',
  framing: 'sse',
  buildRequest: buildVertexClaudeRequest,
  parseResponse: parseAnthropicResponse,
  createStreamParser: () => new AnthropicStreamParser(),
  parseError: parseVertexError,
};

/** Gemini and Google's embedding models on Vertex (`publishers/google`): the Gemini API's bodies under Vertex's paths. */
export const vertexGeminiAdapter: ProviderAdapter = {
  dialect: 'gemini',
  framing: 'sse',
  buildRequest: buildVertexGeminiRequest,
  parseResponse: parseGeminiResponse,
  createStreamParser: () => new GeminiStreamParser(),
  parseError: parseVertexError,
  embeddings: vertexEmbeddings,
};

/** `claude-*` models are Anthropic's on Vertex; every other model is Google's. */
export function vertexAdapterFor(model: string): ProviderAdapter {
  return model.startsWith('claude') ? vertexClaudeAdapter : vertexGeminiAdapter;
}

/** The Gemini API's `{base}/models/{model}:method`, with Vertex's publisher in the base. */
function buildVertexGeminiRequest(request: ChatRequest, target: TargetContext): UpstreamRequest {
  return buildGeminiRequest(request, { ...target, baseUrl: joinUrl(target.baseUrl, '/publishers/google') });
}
