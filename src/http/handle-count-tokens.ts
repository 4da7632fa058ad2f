import type { IncomingMessage, ServerResponse } from 'node:http';
import { estimateInputTokens } from '../admission/token-estimator.js';
import type { Config } from '../config/schema.js';
import { parseAnthropicMessages } from '../dialects/anthropic-messages/parse-anthropic-messages.js';
import { authenticateRequest, authorizeRoute, mayUseRoute } from '../keys/authenticate.js';
import type { KeyCache } from '../keys/key-cache.js';
import { resolveRoute } from '../routing/resolve-route.js';
import { readJsonBody } from './read-json-body.js';
import { sendJson } from './send.js';

/**
 * `POST /v1/messages/count_tokens` (Anthropic dialect), answered by the gateway's own tokenizer:
 * it is free, instant and works whatever provider the route ends at. The count is the OpenAI
 * tokenizer's, so for Claude models it is an estimate (close for English text), not Anthropic's
 * exact figure.
 */
export async function handleCountTokens(
  request: IncomingMessage,
  response: ServerResponse,
  deps: { config: Config; keys: KeyCache },
): Promise<void> {
  const principal = await authenticateRequest(request.headers, { mode: deps.config.auth.mode, keys: deps.keys, nowMs: Date.now() });
  const body = await readJsonBody(request, { maxBytes: deps.config.server.max_body_bytes, timeoutMs: deps.config.server.body_timeout_ms });
  // count_tokens takes a Messages body without max_tokens; the parser requires one.
  const withMaxTokens = body.json !== null && typeof body.json === 'object' && !Array.isArray(body.json) ? { max_tokens: 1, ...body.json } : body.json;
  const { requestedModel, request: chat } = parseAnthropicMessages(withMaxTokens);
  authorizeRoute(principal, resolveRoute(deps.config, requestedModel, (name) => mayUseRoute(principal, name)));
  sendJson(response, 200, { input_tokens: estimateInputTokens(chat) });
}
