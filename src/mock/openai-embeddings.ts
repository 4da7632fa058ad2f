/**
 * OpenAI `/v1/embeddings`: small deterministic vectors, so the gateway's embeddings path can be
 * exercised (and faulted) like chat. The official SDK asks for `encoding_format: "base64"` by
 * default, so both encodings are served.
 */

const defaultDimensions = 8;
const maxDimensions = 4096;

export type EmbeddingsBody =
  | { ok: true; json: string }
  | { ok: false; message: string };

export function embeddingsResponse(body: Record<string, unknown>, name: string): EmbeddingsBody {
  const inputs = inputsOf(body.input);
  if (inputs === undefined) {
    return { ok: false, message: "'input' must be a string, an array of strings or an array of token arrays" };
  }
  const dimensions = body.dimensions ?? defaultDimensions;
  if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > maxDimensions) {
    return { ok: false, message: `'dimensions' must be an integer from 1 to ${maxDimensions}` };
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

/** FNV-1a seeds an xorshift; values in [-1, 1) as float32 so both encodings agree exactly. */
function vectorFor(text: string, dimensions: number): Float32Array {
  let state = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    state ^= text.charCodeAt(index);
    state = Math.imul(state, 0x01000193);
  }
  state = state >>> 0 || 1;
  const vector = new Float32Array(dimensions);
  for (let index = 0; index < dimensions; index++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    vector[index] = state / 0x80000000 - 1;
  }
  return vector;
}
