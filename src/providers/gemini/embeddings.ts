import { FailureKind } from '../../core/failure-kind.js';
import { UpstreamFailureError, type EmbeddingsAdapter, type EmbeddingsRequest, type EmbeddingsResult, type TargetContext, type UpstreamRequest } from '../spec.js';
import { isRecord, readArray, readNumber, readRecord } from '../shared/json-fields.js';
import { joinUrl } from '../shared/join-url.js';

/**
 * `models/{model}:batchEmbedContents`: one request per input, answered in input order. Gemini
 * embeds text only, and reports no token usage for it (the engine estimates it).
 */
export const geminiEmbeddings: EmbeddingsAdapter = {
  buildRequest: buildGeminiEmbeddingsRequest,
  parseResponse: parseGeminiEmbeddingsResponse,
};

function buildGeminiEmbeddingsRequest(request: EmbeddingsRequest, target: TargetContext): UpstreamRequest {
  const name = target.routedModel.replace(/^models\//, '');
  const requests = request.input.map((input) => {
    if (typeof input !== 'string') {
      throw new UpstreamFailureError({ kind: FailureKind.invalidRequest, message: 'Gemini embeds text only; token arrays cannot be sent to it.' });
    }
    return {
      model: `models/${name}`,
      content: { parts: [{ text: input }] },
      ...(request.dimensions === undefined ? {} : { outputDimensionality: request.dimensions }),
    };
  });
  return {
    url: joinUrl(target.baseUrl, `/models/${encodeURIComponent(name)}:batchEmbedContents`),
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ requests }),
  };
}

function parseGeminiEmbeddingsResponse(body: unknown): EmbeddingsResult {
  const embeddings = isRecord(body) ? readArray(body, 'embeddings') : undefined;
  if (embeddings === undefined) throw new UpstreamFailureError({ kind: FailureKind.serverError, message: 'the embeddings response has no embeddings list' });
  const vectors = embeddings.map((entry, position) => {
    const values = isRecord(entry) ? readArray(entry, 'values') : undefined;
    if (values === undefined || !values.every((value) => typeof value === 'number')) {
      throw new UpstreamFailureError({ kind: FailureKind.serverError, message: `embedding ${position} of the response is not a vector` });
    }
    return values as number[];
  });
  const usage = isRecord(body) ? readRecord(body, 'usageMetadata') : undefined;
  const promptTokens = usage && readNumber(usage, 'promptTokenCount');
  return { vectors, ...(promptTokens === undefined ? {} : { usage: { inputTokens: promptTokens, outputTokens: 0 } }) };
}
