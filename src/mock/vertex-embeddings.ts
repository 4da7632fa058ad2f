import { isRecord } from './answer.js';
import { DEFAULT_DIMENSIONS, MAX_DIMENSIONS, vectorFor, type EmbeddingsBody } from './embedding-vector.js';

/**
 * Vertex's `publishers/google/models/{model}:predict` for its embedding models: one vector per
 * instance's `content` (`parameters.outputDimensionality` honoured), each with its token count,
 * and the characters billed, as Vertex reports them.
 */
export function vertexEmbeddingsResponse(body: Record<string, unknown>): EmbeddingsBody {
  const instances = body.instances;
  if (!Array.isArray(instances) || instances.length === 0) return { ok: false, message: "'instances' must be a non-empty array" };
  const parameters = isRecord(body.parameters) ? body.parameters : {};
  const dimensions = parameters.outputDimensionality ?? DEFAULT_DIMENSIONS;
  if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
    return { ok: false, message: `parameters.outputDimensionality must be an integer from 1 to ${MAX_DIMENSIONS}` };
  }
  let characters = 0;
  const predictions: object[] = [];
  for (const [index, instance] of instances.entries()) {
    const content = isRecord(instance) ? instance.content : undefined;
    if (typeof content !== 'string') return { ok: false, message: `instances[${index}].content must be a string` };
    characters += content.length;
    const values = Array.from(vectorFor(content, dimensions));
    predictions.push({ embeddings: { values, statistics: { token_count: Math.ceil(content.length / 4), truncated: false } } });
  }
  return { ok: true, json: JSON.stringify({ predictions, metadata: { billableCharacterCount: characters } }) };
}
