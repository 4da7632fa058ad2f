/**
 * OpenAI `/v1/embeddings`: small deterministic vectors, so the gateway's embeddings path can be
 * exercised (and faulted) like chat. The official SDK asks for `encoding_format: "base64"` by
 * default, so both encodings are served.
 */

import { DEFAULT_DIMENSIONS, MAX_DIMENSIONS, vectorFor, type EmbeddingsBody } from './embedding-vector.js';

export function embeddingsResponse(body: Record<string, unknown>, name: string): EmbeddingsBody {
  const inputs = inputsOf(body.input);
  if (inputs === undefined) {
    return { ok: false, message: "'input' must be a string, an array of strings or an array of token arrays" };
  }
  const dimensions = body.dimensions ?? DEFAULT_DIMENSIONS;
  if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
    return { ok: false, message: `'dimensions' must be an integer from 1 to ${MAX_DIMENSIONS}` };
  }
  const base64 = body.encoding_format === 'base64';
  let characters = 0;
  const data = inputs.map((input, index) => {
    characters += input.length;
    const vector = vectorFor(input, dimensions);
    const embedding = base64 ? Buffer.from(vector.buffer).toString('base64') : Array.from(vector);
    return { object: 'embedding', index, embedding };
  });
  const promptTokens = Math.ceil(characters / 4);
  return {
    ok: true,
    json: JSON.stringify({
      object: 'list',
      data,
      model: name,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    }),
  };
}

/** Token arrays are hashed through their decimal text, so they get vectors like any string. */
function inputsOf(input: unknown): string[] | undefined {
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input) || input.length === 0) return undefined;
  if (input.every((item) => typeof item === 'number')) return [input.join(',')];
  const inputs: string[] = [];
  for (const item of input) {
    if (typeof item === 'string') inputs.push(item);
    else if (Array.isArray(item) && item.every((token) => typeof token === 'number')) inputs.push(item.join(','));
    else return undefined;
  }
  return inputs;
}
