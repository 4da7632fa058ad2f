import type { EmbeddingsResult } from '../../providers/spec.js';

/**
 * The OpenAI embeddings list, each vector in the encoding the caller asked for: a provider that
 * answered in the other encoding (Gemini only sends floats) is converted, as little-endian float32.
 */
export function renderOpenAiEmbeddings(result: EmbeddingsResult, options: { model: string; encodingFormat: 'float' | 'base64' }): unknown {
  const inputTokens = result.usage?.inputTokens ?? 0;
  return {
    object: 'list',
    data: result.vectors.map((vector, index) => ({ object: 'embedding', index, embedding: encode(vector, options.encodingFormat) })),
    model: result.responseModel ?? options.model,
    usage: { prompt_tokens: inputTokens, total_tokens: inputTokens },
  };
}

function encode(vector: number[] | string, format: 'float' | 'base64'): number[] | string {
  if (format === 'base64') return typeof vector === 'string' ? vector : Buffer.from(Float32Array.from(vector).buffer).toString('base64');
  if (typeof vector !== 'string') return vector;
  const bytes = Buffer.from(vector, 'base64');
  return Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 4)));
}
