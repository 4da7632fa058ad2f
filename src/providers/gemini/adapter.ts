import type { ProviderAdapter } from '../spec.js';
import { buildGeminiRequest } from './build-request.js';
import { geminiEmbeddings } from './embeddings.js';
import { parseGeminiError } from './parse-error.js';
import { parseGeminiResponse } from './parse-response.js';
import { GeminiStreamParser } from './parse-stream.js';

/** The Gemini API (generativelanguage.googleapis.com, `v1beta`) adapter. */
export const geminiAdapter: ProviderAdapter = {
  dialect: 'gemini',
  framing: 'sse',
  buildRequest: buildGeminiRequest,
  parseResponse: parseGeminiResponse,
  createStreamParser: () => new GeminiStreamParser(),
  parseError: parseGeminiError,
  embeddings: geminiEmbeddings,
};
