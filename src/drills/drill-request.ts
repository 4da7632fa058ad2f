import { PROBE_REQUEST } from '../health/probe-request.js';
import type { ChatRequest, ProviderAdapter } from '../providers/spec.js';

/** The Responses API refuses `max_output_tokens` below this. */
export const RESPONSES_MIN_OUTPUT_TOKENS = 16;

/**
 * A drill step's request: the probe's one-word prompt, asking for as little output as the
 * answering target's API accepts (one token, except on a Responses API). A chat request reaches a
 * target's Responses API only when that is the target's own wire format: it carries no Responses body.
 */
export function drillRequest(adapter: ProviderAdapter): ChatRequest {
  return { ...PROBE_REQUEST, maxOutputTokens: adapter.dialect === 'openai-responses' ? RESPONSES_MIN_OUTPUT_TOKENS : 1 };
}
