import type { ChatRequest, ChatResult, StreamEvent } from '../providers/spec.js';
import type { Usage } from '../core/usage.js';

/**
 * A rough token count (about four characters a token for English text), used only where the
 * provider never reported usage — a stream that died first — and always marked `estimated`.
 */
export function estimateTokens(characters: number): number {
  return Math.ceil(characters / 4);
}

/** Characters of everything the model reads in a request: messages, tool definitions. */
export function requestCharacters(request: ChatRequest): number {
  let characters = 0;
  for (const message of request.messages) {
    if (typeof message.content === 'string') {
      characters += message.content.length;
      continue;
    }
    for (const part of message.content) if (part.type === 'text') characters += part.text.length;
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls ?? []) characters += call.name.length + call.arguments.length;
    // Earlier turns' thinking is input again when sent back (redacted blocks: their opaque data).
    for (const block of message.reasoningBlocks ?? []) characters += block.type === 'thinking' ? block.text.length : block.data.length;
  }
  for (const tool of request.tools ?? []) characters += tool.name.length + (tool.description?.length ?? 0) + JSON.stringify(tool.parameters ?? {}).length;
  return characters;
}

/** Characters of generated output an event carries (text, reasoning, refusal, tool arguments). */
export function outputCharactersOf(event: StreamEvent): number {
  switch (event.type) {
    case 'text-delta':
    case 'reasoning-delta':
    case 'refusal-delta':
      return event.text.length;
    case 'tool-call-delta':
      return event.argumentsDelta.length;
    case 'reasoning-redacted':
      return event.data.length;
    default:
      return 0;
  }
}

/** Characters of generated output in a whole answer (text, reasoning, refusal, tool arguments). */
export function outputCharactersOfResult(result: ChatResult): number {
  let characters = result.text.length + (result.reasoning?.length ?? 0) + (result.refusal?.length ?? 0);
  for (const call of result.toolCalls) characters += call.arguments.length;
  return characters;
}

/**
 * Usage for a stream that died before the provider's final count: the provider still bills what
 * it generated. Keeps whatever the provider reported early (Anthropic's input count at the
 * start), and never reports less output than the text that was generated.
 */
export function estimatedUsage(reported: Usage | undefined, outputCharacters: number, estimateInputTokens: () => number): Usage {
  return {
    inputTokens: reported?.inputTokens ?? estimateInputTokens(),
    outputTokens: Math.max(reported?.outputTokens ?? 0, estimateTokens(outputCharacters)),
    estimated: true,
  };
}
