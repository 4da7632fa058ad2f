import { createOpenAiAdapter } from '../openai/adapter.js';
import { createOpenAiResponsesAdapter } from '../openai-responses/adapter.js';
import { joinUrl } from '../shared/join-url.js';
import type { ProviderAdapter, TargetContext } from '../spec.js';

/** The newest generally available data-plane version when this was written; `api_version` overrides it. */
export const AZURE_DEFAULT_API_VERSION = '2024-10-21';

/**
 * Azure OpenAI: the Chat Completions wire format at deployment URLs. The target's model is the
 * deployment name, base_url the resource endpoint (`https://NAME.openai.azure.com`), and every
 * request carries `api-version`. Content-filter refusals arrive as OpenAI-shaped errors (400
 * `content_filter`) or as `finish_reason: content_filter`, which the OpenAI adapter classifies.
 */
export function createAzureOpenAiAdapter(apiVersion: string = AZURE_DEFAULT_API_VERSION): ProviderAdapter {
  // Azure accepts both output-limit names; which one the caller used is kept (see outputLimitParam).
  const openAi = createOpenAiAdapter({ promptCacheKey: true });
  const deploymentTarget = (target: TargetContext): TargetContext => ({
    ...target,
    baseUrl: joinUrl(target.baseUrl, `/openai/deployments/${encodeURIComponent(target.routedModel)}`),
  });
  const withApiVersion = (url: string) => `${url}?api-version=${encodeURIComponent(apiVersion)}`;
  return {
    ...openAi,
    buildRequest(request, target) {
      const upstream = openAi.buildRequest(request, deploymentTarget(target));
      upstream.url = withApiVersion(upstream.url);
      return upstream;
    },
    relay(body, request, target) {
      const upstream = openAi.relay!(body, request, deploymentTarget(target));
      if (upstream) upstream.url = withApiVersion(upstream.url);
      return upstream;
    },
    embeddings: {
      buildRequest(request, target) {
        const upstream = openAi.embeddings!.buildRequest(request, deploymentTarget(target));
        upstream.url = withApiVersion(upstream.url);
        return upstream;
      },
      parseResponse: openAi.embeddings!.parseResponse,
    },
    // The v1 Responses API takes the deployment as `model` and needs no `api-version`.
    responses: createOpenAiResponsesAdapter({ origin: 'azure-openai', path: '/openai/v1/responses', promptCacheKey: true }),
  };
}
