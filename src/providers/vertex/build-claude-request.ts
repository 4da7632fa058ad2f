import { anthropicBetaHeader, buildMessagesBody } from '../anthropic/build-request.js';
import type { ChatRequest, TargetContext, UpstreamRequest } from '../spec.js';
import { publisherModelUrl } from './publisher-path.js';

/** Vertex names the Messages API version in the body, and knows only this one. */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/**
 * The Messages API body as Anthropic's API takes it, but with the model in the URL instead
 * and the version in the body instead of a header. Beta flags travel as on Anthropic's API, in
 * the `anthropic-beta` header (Bedrock alone moves them into the body).
 */
export function buildVertexClaudeRequest(request: ChatRequest, target: TargetContext): UpstreamRequest {
  const body = buildMessagesBody(request, { anthropic_version: VERTEX_ANTHROPIC_VERSION });
  const method = request.stream ? 'streamRawPredict' : 'rawPredict';
  return {
    url: publisherModelUrl(target.baseUrl, 'anthropic', target.routedModel, method),
    method: 'POST',
    headers: { 'content-type': 'application/json', ...anthropicBetaHeader(request) },
    body: JSON.stringify(body),
  };
}
