import type { ChatRequest } from '../providers/spec.js';

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
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) characters += call.name.length + call.arguments.length;
  }
  for (const tool of request.tools ?? []) characters += tool.name.length + (tool.description?.length ?? 0) + JSON.stringify(tool.parameters ?? {}).length;
  return characters;
}
