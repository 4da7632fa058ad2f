import { isRecord } from '../../providers/shared/json-fields.js';
import type { ChatRequest } from '../../providers/spec.js';

/** Anthropic refuses a thinking budget below this. */
const MIN_THINKING_BUDGET_TOKENS = 1_024;

/**
 * Lowers a request's output cap to `tokens` (a key's budget pays for no more; docs/keys-and-budgets.md),
 * in the canonical request and in the Responses caller's body that Responses targets are sent as it came.
 * Anthropic counts extended thinking inside `max_tokens` and refuses a `thinking.budget_tokens`
 * that is not below it, so a caller's thinking budget is lowered with the cap — or thinking is
 * turned off when the cap leaves no room for Anthropic's smallest budget — rather than turning a
 * request the budget can pay for into a 400.
 */
export function lowerOutputCap(request: ChatRequest, tokens: number): void {
  request.maxOutputTokens = tokens;
  if (request.responsesBody) request.responsesBody = { ...request.responsesBody, max_output_tokens: tokens };
  const passthrough = request.passthrough;
  const thinking = passthrough?.dialect === 'anthropic' ? passthrough.fields.thinking : undefined;
  if (!passthrough || !isRecord(thinking) || typeof thinking.budget_tokens !== 'number' || thinking.budget_tokens < tokens) return;
  const budgetTokens = tokens - 1;
  const lowered = budgetTokens >= MIN_THINKING_BUDGET_TOKENS ? { ...thinking, budget_tokens: budgetTokens } : { type: 'disabled' };
  request.passthrough = { ...passthrough, fields: { ...passthrough.fields, thinking: lowered } };
  // The relay edits the cap but not the thinking inside the caller's body: this one is translated.
  delete request.callerBody;
}
