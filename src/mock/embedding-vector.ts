/** Deterministic vectors for the mock's embeddings, whichever wire format asks for them. */

export const DEFAULT_DIMENSIONS = 8;
export const MAX_DIMENSIONS = 4096;

export type EmbeddingsBody =
  | { ok: true; json: string }
  | { ok: false; message: string };

/** FNV-1a seeds an xorshift; values in [-1, 1) as float32 so both encodings agree exactly. */
export function vectorFor(text: string, dimensions: number): Float32Array {
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
