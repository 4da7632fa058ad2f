import { FailureKind } from '../../core/failure-kind.js';
import { isRecord, readArray, readNumber, readRecord } from '../shared/json-fields.js';
import {
  UpstreamFailureError,
  type EmbeddingsAdapter,
  type EmbeddingsRequest,
  type EmbeddingsResult,
  type TargetContext,
  type UpstreamRequest,
} from '../spec.js';
import { publisherModelUrl } from './publisher-path.js';

/**
 * Vertex's embedding models (`text-embedding-005`, `gemini-embedding-001`, …) through `:predict`:
 * one instance per input, one prediction per instance in order, each counting its own tokens.
 */
export const vertexEmbeddings: EmbeddingsAdapter = {
  buildRequest: buildVertexEmbeddingsRequest,
  parseResponse: parseVertexEmbeddingsResponse,
};

function buildVertexEmbeddingsRequest(request: EmbeddingsRequest, target: TargetContext): UpstreamRequest {
  const instances = request.input.map((input) => {
    if (typeof input !== 'string') {
      throw new UpstreamFailureError({ kind: FailureKind.invalidRequest, message: 'Vertex embeds text only; token arrays cannot be sent to it.' });
    }
    return { content: input };
  });
  const body = { instances, ...(request.dimensions === undefined ? {} : { parameters: { outputDimensionality: request.dimensions } }) };
  return {
    url: publisherModelUrl(target.baseUrl, 'google', target.routedModel, 'predict'),
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
}

function parseVertexEmbeddingsResponse(body: unknown): EmbeddingsResult {
  const predictions = isRecord(body) ? readArray(body, 'predictions') : undefined;
  if (predictions === undefined) throw malformed('the embeddings response has no predictions list');
  let inputTokens: number | undefined;
  const vectors = predictions.map((prediction, position) => {
    const embeddings = isRecord(prediction) ? readRecord(prediction, 'embeddings') : undefined;
    const values = embeddings && readArray(embeddings, 'values');
    if (values === undefined || !values.every((value) => typeof value === 'number')) throw malformed(`prediction ${position} of the response is not a vector`);
    const statistics = embeddings && readRecord(embeddings, 'statistics');
    const tokens = statistics && readNumber(statistics, 'token_count');
    if (tokens !== undefined) inputTokens = (inputTokens ?? 0) + tokens;
    return values as number[];
  });
  return { vectors, ...(inputTokens === undefined ? {} : { usage: { inputTokens, outputTokens: 0 } }) };
}

function malformed(message: string): UpstreamFailureError {
  return new UpstreamFailureError({ kind: FailureKind.serverError, message });
}
