import type { ChatRequest, EmbeddingsRequest } from '../providers/spec.js';

/**
 * The active probe (docs/health.md): a minimal real completion, one output token. Real, because only a
 * real request proves a key, a quota or a model works again; minimal, because probes cost money.
 */
export const PROBE_REQUEST: ChatRequest = Object.freeze({
  messages: [{ role: 'user', content: [{ type: 'text', text: 'ping' }] }],
  maxOutputTokens: 1,
  stream: false,
  includeUsage: false,
}) as ChatRequest;

/** The same for an embedding model (`isEmbeddingModel`), which refuses a chat: one word to embed. */
export const PROBE_EMBEDDINGS_REQUEST: EmbeddingsRequest = Object.freeze({ input: ['ping'], encodingFormat: 'float' }) as EmbeddingsRequest;
