import type { ChatMessage, ContentPart, ToolCall } from '../spec.js';
import { isShown } from '../shared/is-shown.js';
import type { JsonRecord } from '../shared/json-fields.js';
import { fitToolCallId, type ToolCallIdRule } from '../shared/tool-call-ids.js';

/**
 * Canonical messages → Chat Completions `messages`, tool-call ids fitted to what the host accepts.
 * A caller's system entry among the turns stays there (Chat Completions takes system messages
 * anywhere), while the model would still read it.
 */
export function toOpenAiMessages(messages: readonly ChatMessage[], ids: ToolCallIdRule): JsonRecord[] {
  return messages.filter(isShown).map((message) => toOpenAiMessage(message, ids));
}

function toOpenAiMessage(message: ChatMessage, ids: ToolCallIdRule): JsonRecord {
  switch (message.role) {
    case 'system':
    case 'developer':
      // `developer` is kept: OpenAI's newer models expect it, and compatible hosts that do not
      // know it reject it visibly rather than silently dropping the instructions.
      return { role: message.role, content: message.content };
    case 'user':
      return { role: 'user', content: toOpenAiContent(message.content), name: message.name };
    case 'assistant': {
      const toolCalls = message.toolCalls ?? [];
      return {
        role: 'assistant',
        // Chat Completions wants `null`, not an empty string, beside tool calls.
        content: message.content.length === 0 && toolCalls.length > 0 ? null : toOpenAiContent(message.content),
        refusal: message.refusal,
        name: message.name,
        tool_calls: toolCalls.length > 0 ? toolCalls.map((call) => toOpenAiToolCall(call, ids)) : undefined,
      };
    }
    case 'tool':
      // Chat Completions has no error flag on tool results; the content itself says so.
      return { role: 'tool', tool_call_id: fitToolCallId(message.toolCallId, ids), content: toOpenAiContent(message.content) };
  }
}

/**
 * A lone text part goes as a plain string: several OpenAI-compatible hosts reject content
 * arrays, and every host accepts a string.
 */
function toOpenAiContent(parts: readonly ContentPart[]): string | JsonRecord[] {
  const [first] = parts;
  if (first === undefined) return '';
  if (parts.length === 1 && first.type === 'text') return first.text;
  return parts.map((part) =>
    part.type === 'text'
      ? { type: 'text', text: part.text }
      : { type: 'image_url', image_url: { url: part.url, detail: part.detail } },
  );
}

function toOpenAiToolCall(call: ToolCall, ids: ToolCallIdRule): JsonRecord {
  return { id: fitToolCallId(call.id, ids), type: 'function', function: { name: call.name, arguments: call.arguments } };
}
