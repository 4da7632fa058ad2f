import { isRecord } from './answer.js';
import { DEFAULT_DIMENSIONS, MAX_DIMENSIONS, vectorFor, type EmbeddingsBody } from './embedding-vector.js';

/**
 * Gemini `models/{model}:batchEmbedContents`: one vector per request, in order, from the text of
 * its parts (`outputDimensionality` honoured). Like Gemini, no token usage is reported.
 */
export function geminiEmbeddingsResponse(body: Record<string, unknown>): EmbeddingsBody {
  const requests = body.requests;
  if (!Array.isArray(requests) || requests.length === 0) return { ok: false, message: "'requests' must be a non-empty array" };
  const embeddings: { values: number[] }[] = [];
  for (const [index, request] of requests.entries()) {
    const parts = isRecord(request) && isRecord(request.content) ? request.content.parts : undefined;
    if (!Array.isArray(parts)) return { ok: false, message: `requests[${index}].content.parts must be an array` };
    const text = parts.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('');
    const dimensions = (isRecord(request) ? request.outputDimensionality : undefined) ?? DEFAULT_DIMENSIONS;
    if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
      return { ok: false, message: `requests[${index}].outputDimensionality must be an integer from 1 to ${MAX_DIMENSIONS}` };
    }
    embeddings.push({ values: Array.from(vectorFor(text, dimensions)) });
  }
  return { ok: true, json: JSON.stringify({ embeddings }) };
}
