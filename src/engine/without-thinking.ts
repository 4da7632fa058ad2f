import type { ChatRequest } from '../providers/spec.js';

/**
 * The request without the thinking blocks of its earlier assistant turns (signed and redacted
 * alike), or undefined when it has none: what is retried on a home that refused a block another
 * home signed. Anthropic accepts earlier turns without their thinking, and what is lost is the
 * model's sight of its earlier reasoning; but with thinking on, the last assistant turn of a tool
 * loop must start with its thinking, so such a request is refused again (an ordinary invalid request).
 */
export function withoutThinkingBlocks(request: ChatRequest): ChatRequest | undefined {
  if (!request.messages.some((message) => message.role === 'assistant' && (message.reasoningBlocks?.length ?? 0) > 0)) return undefined;
  const messages = request.messages.map((message) => {
    if (message.role !== 'assistant' || message.reasoningBlocks === undefined) return message;
    const { reasoningBlocks: _dropped, ...rest } = message;
    return rest;
  });
  // The caller's own body still has them: this request is translated, never relayed.
  const { callerBody: _relayable, ...rest } = request;
  return { ...rest, messages };
}
