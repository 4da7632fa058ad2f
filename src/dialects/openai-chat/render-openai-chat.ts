import type { ChatResult } from '../../providers/spec.js';
import type { Usage } from '../../core/usage.js';

/** The OpenAI `usage` object, from canonical usage. */
export function toOpenAiUsage(usage: Usage): Record<string, unknown> {
  const rendered: Record<string, unknown> = {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
  if (usage.cacheReadTokens !== undefined) rendered.prompt_tokens_details = { cached_tokens: usage.cacheReadTokens };
  if (usage.reasoningTokens !== undefined) rendered.completion_tokens_details = { reasoning_tokens: usage.reasoningTokens };
  return rendered;
}

/** A complete answer as an OpenAI `chat.completion` object. */
export function renderOpenAiChat(result: ChatResult, fallbackId: string): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: result.text === '' && result.toolCalls.length > 0 ? null : result.text };
  if (result.refusal !== undefined) message.refusal = result.refusal;
  else message.refusal = null;
  if (result.toolCalls.length > 0) {
    message.tool_calls = result.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  const completion: Record<string, unknown> = {
    id: result.id || fallbackId,
    object: 'chat.completion',
    created: result.created ?? Math.floor(Date.now() / 1000),
    model: result.responseModel,
    choices: [{ index: 0, message, logprobs: null, finish_reason: result.finishReason }],
  };
  if (result.usage) completion.usage = toOpenAiUsage(result.usage);
  if (result.systemFingerprint !== undefined) completion.system_fingerprint = result.systemFingerprint;
  return completion;
}
