import { UpstreamFailureError, type EmbeddingsAdapter, type EmbeddingsRequest, type EmbeddingsResult, type TargetContext, type UpstreamRequest } from '../spec.js';
import { isRecord, readArray, readNumber, readString, type JsonRecord } from '../shared/json-fields.js';
import { joinUrl } from '../shared/join-url.js';

/** `POST /embeddings` as OpenAI and the OpenAI-compatible hosts serve it. */
export const openAiEmbeddings: EmbeddingsAdapter = {
  buildRequest: buildOpenAiEmbeddingsRequest,
  parseResponse: parseOpenAiEmbeddingsResponse,
};

function buildOpenAiEmbeddingsRequest(request: EmbeddingsRequest, target: TargetContext): UpstreamRequest {
  const body: JsonRecord = { model: target.routedModel, input: request.input, encoding_format: request.encodingFormat };
  if (request.dimensions !== undefined) body.dimensions = request.dimensions;
  if (request.user !== undefined) body.user = request.user;
  return {
    url: joinUrl(target.baseUrl, '/embeddings'),
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
}

function parseOpenAiEmbeddingsResponse(body: unknown): EmbeddingsResult {
  const data = isRecord(body) ? readArray(body, 'data') : undefined;
  if (!isRecord(body) || data === undefined) {
    throw new UpstreamFailureError({ kind: 'server_error', message: 'the embeddings response has no data list' });
  }
  const vectors: (number[] | string)[] = [];
  for (const [position, entry] of data.entries()) {
    const embedding = isRecord(entry) ? entry.embedding : undefined;
    if (!isVector(embedding)) throw new UpstreamFailureError({ kind: 'server_error', message: `embedding ${position} of the response is not a vector` });
    // Entries carry their input's index; hosts keep them in order, but the index is what counts.
    const index = isRecord(entry) ? readNumber(entry, 'index') : undefined;
    vectors[index !== undefined && Number.isInteger(index) && index >= 0 && index < data.length ? index : position] = embedding;
  }
  if (vectors.length !== data.length || vectors.includes(undefined as never)) {
    throw new UpstreamFailureError({ kind: 'server_error', message: 'the embeddings response repeats or skips an input index' });
  }
  const usage = isRecord(body.usage) ? body.usage : undefined;
  return {
    responseModel: readString(body, 'model'),
    vectors,
    ...(usage ? { usage: { inputTokens: readNumber(usage, 'prompt_tokens') ?? 0, outputTokens: 0 } } : {}),
  };
}

function isVector(value: unknown): value is number[] | string {
  return typeof value === 'string' || (Array.isArray(value) && value.every((item) => typeof item === 'number'));
}
