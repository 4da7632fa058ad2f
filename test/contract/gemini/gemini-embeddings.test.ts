import { describe, expect, it } from 'vitest';
import { geminiAdapter } from '../../../src/providers/gemini/adapter.js';
import { UpstreamFailureError } from '../../../src/providers/spec.js';

const TARGET = { baseUrl: 'https://generativelanguage.googleapis.com/v1beta', routedModel: 'models/gemini-embedding-001' };
const embeddings = geminiAdapter.embeddings!;

describe('Gemini embeddings (batchEmbedContents)', () => {
  it('sends one request per text, to the model named once in the path', () => {
    const upstream = embeddings.buildRequest({ input: ['a', 'b'], encodingFormat: 'float', dimensions: 768 }, TARGET);
    expect(upstream.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-embedding-001:batchEmbedContents');
    expect(JSON.parse(upstream.body)).toEqual({
      requests: [
        { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'a' }] }, outputDimensionality: 768 },
        { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'b' }] }, outputDimensionality: 768 },
      ],
    });
    expect(upstream.headers).toEqual({ 'content-type': 'application/json' });
  });

  it('refuses token arrays, which Gemini cannot embed, as invalid_request (another target may)', () => {
    expect(() => embeddings.buildRequest({ input: [[1, 2, 3]], encodingFormat: 'float' }, TARGET)).toThrow(UpstreamFailureError);
  });

  it('reads the vectors in order; usage only when Gemini reports it', () => {
    expect(embeddings.parseResponse({ embeddings: [{ values: [0.1, 0.2] }, { values: [0.3, 0.4] }] })).toEqual({ vectors: [[0.1, 0.2], [0.3, 0.4]] });
    expect(embeddings.parseResponse({ embeddings: [{ values: [1] }], usageMetadata: { promptTokenCount: 7 } }).usage).toEqual({ inputTokens: 7, outputTokens: 0 });
  });

  it('treats a body without vectors as the provider failing', () => {
    expect(() => embeddings.parseResponse({ candidates: [] })).toThrow(UpstreamFailureError);
    expect(() => embeddings.parseResponse({ embeddings: [{ values: ['x'] }] })).toThrow(UpstreamFailureError);
  });
});
