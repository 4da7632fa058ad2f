import { PROBE_EMBEDDINGS_REQUEST, PROBE_REQUEST } from '../health/probe-request.js';
import { isEmbeddingModel } from '../metering/embedding-models.js';
import type { ChatRequest, EmbeddingsRequest, ProviderAdapter } from '../providers/spec.js';
import type { ResolvedRoute } from '../routing/resolve-route.js';

/** The Responses API refuses `max_output_tokens` below this. */
export const RESPONSES_MIN_OUTPUT_TOKENS = 16;

/**
 * A drill step's request, the probe's: for a route whose every target is an embedding model, one
 * word to embed; otherwise the one-word prompt, asking for as little output as the
 * answering target's API accepts (one token, except on a Responses API). A chat request reaches a
 * target's Responses API only when that is the target's own wire format: it carries no Responses body.
 */
export function drillRequest(route: ResolvedRoute, adapter: ProviderAdapter): ChatRequest | EmbeddingsRequest {
  if (route.targets.every((target) => isEmbeddingModel(target.routedModel))) return PROBE_EMBEDDINGS_REQUEST;
  return { ...PROBE_REQUEST, maxOutputTokens: adapter.dialect === 'openai-responses' ? RESPONSES_MIN_OUTPUT_TOKENS : 1 };
}
