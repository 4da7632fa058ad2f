import type { UpstreamFailure } from '../spec.js';

/**
 * How Anthropic, and Claude on Bedrock (a `ValidationException`) and on Vertex AI, refuse a
 * thinking block they cannot verify — one signed by another home of the model, or altered:
 * `messages.1.content.0: Invalid \`signature\` in \`thinking\` block`, and for an encrypted block
 * `messages.23.content.2: Invalid \`data\` in \`redacted_thinking\` block` (as reported in
 * anthropics/claude-code#10627 and #56708, anomalyco/opencode#15074 for Bedrock; some clients
 * print it without the backticks).
 */
const THINKING_SIGNATURE_MESSAGE = /Invalid `?(?:signature|data)`? in `?(?:redacted_)?thinking`? block/i;

/** Whether the provider refused the request because of a thinking block in its history that it cannot verify. */
export function refusesThinkingSignature(failure: UpstreamFailure): boolean {
  return failure.kind === 'invalid_request' && THINKING_SIGNATURE_MESSAGE.test(failure.message);
}
