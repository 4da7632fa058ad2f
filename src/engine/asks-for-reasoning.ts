import type { ChatRequest } from '../providers/spec.js';

/**
 * Whether the caller asked the model to reason before answering: OpenAI Chat's `reasoning_effort`
 * (other than `none`), a Responses `reasoning` object, or Anthropic `thinking` (which is what makes
 * an Anthropic caller's reasoning shown `signed`). Such a request's first token comes after the
 * thinking, however quick the model is otherwise.
 */
export function asksForReasoning(request: ChatRequest): boolean {
  if (request.shownReasoning === 'signed') return true;
  const effort = request.passthrough?.fields.reasoning_effort;
  if (effort !== undefined && effort !== null && effort !== 'none') return true;
  const reasoning = request.responsesBody?.reasoning as { effort?: unknown } | null | undefined;
  return reasoning != null && reasoning.effort !== 'none';
}
