import { expect, it } from 'vitest';
import { isEmbeddingModel } from './embedding-models.js';

it('knows embedding models by the names providers give them, and chat models are not', () => {
  for (const model of ['text-embedding-3-small', 'gemini-embedding-001', 'models/text-embedding-004', 'amazon.titan-embed-text-v2:0', 'cohere.embed-english-v3', 'mistral-embed', 'embedding-mock']) {
    expect(isEmbeddingModel(model), model).toBe(true);
  }
  for (const model of ['gpt-4.1', 'claude-sonnet-4-5', 'gemini-2.5-flash', 'anthropic.claude-sonnet-4-5', 'gpt-mock']) expect(isEmbeddingModel(model), model).toBe(false);
});
