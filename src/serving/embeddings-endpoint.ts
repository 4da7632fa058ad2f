import { estimateEmbeddingsTokens } from '../admission/token-estimator.js';
import { embeddingsOperation } from '../engine/embeddings-operation.js';
import { OPENAI_CHAT } from '../dialects/openai-chat/openai-chat.js';
import { parseOpenAiEmbeddings, type ParsedEmbeddings } from '../dialects/openai-embeddings/parse-openai-embeddings.js';
import { renderOpenAiEmbeddings } from '../dialects/openai-embeddings/render-openai-embeddings.js';
import type { EmbeddingsResult } from '../providers/spec.js';
import type { Endpoint } from './endpoint.js';

/**
 * `POST /v1/embeddings`: targets whose provider has no embeddings are passed over. Nothing is
 * generated, so the budget reserves input tokens only.
 */
export const EMBEDDINGS_ENDPOINT: Endpoint<ParsedEmbeddings, EmbeddingsResult> = {
  operation: 'embeddings',
  parse: parseOpenAiEmbeddings,
  demand: ({ request }) => ({ inputTokens: () => estimateEmbeddingsTokens(request), maxOutputTokens: 0 }),
  operationOf: ({ request }) => embeddingsOperation(request),
  errorBody: OPENAI_CHAT.errorBody,
  streamRenderer: () => undefined,
  render: (answer, { parsed, served }) => ({
    json: renderOpenAiEmbeddings(answer, { model: served.routedModel, encodingFormat: parsed.request.encodingFormat }),
  }),
};
