import type { ChatMessage, ContentPart, ReasoningBlock, SystemMessage, TextPart, ToolCall, ToolMessage } from '../spec.js';
import type { JsonRecord } from '../shared/json-fields.js';
import { base64DataUrl, toolArgumentsObject } from '../shared/message-parts.js';
import { ANTHROPIC_TOOL_CALL_IDS, fitToolCallId } from '../shared/tool-call-ids.js';

export interface AnthropicTurn {
  role: 'user' | 'assistant';
  content: string | JsonRecord[];
}

export interface AnthropicConversation {
  system?: string | JsonRecord[];
  /** Turns, and the caller's own `system` entries among them, as sent. */
  messages: (AnthropicTurn | JsonRecord)[];
}

/**
 * Canonical messages → Messages API `system` + `messages`. System and developer messages are
 * hoisted to `system`, except a caller's `system` entries among the turns, which stay where they
 * were, as sent; tool results travel in user turns; consecutive user or assistant turns are
 * merged, because Anthropic requires them to alternate. Cache markers go back on the blocks they
 * came on, as `cache_control`.
 */
export function toAnthropicConversation(messages: readonly ChatMessage[]): AnthropicConversation {
  const systemParts: TextPart[] = [];
  // A caller's system entry among the turns goes back exactly as it came.
  const turns: ({ role: 'user' | 'assistant'; blocks: JsonRecord[] } | { sent: JsonRecord })[] = [];
  for (const message of messages) {
    if (isSystemMessage(message)) {
      if (message.conversationEntry) turns.push({ sent: message.conversationEntry.sent });
      else systemParts.push(...(message.parts ?? [{ type: 'text', text: message.content }]));
      continue;
    }
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = toBlocks(message);
    const previous = turns.at(-1);
    if (previous !== undefined && 'role' in previous && previous.role === role) previous.blocks.push(...blocks);
    else turns.push({ role, blocks });
  }
  return {
    system: toSystem(systemParts),
    messages: turns.map((turn) => ('sent' in turn ? turn.sent : { role: turn.role, content: toTurnContent(turn.blocks) })),
  };
}

function isSystemMessage(message: ChatMessage): message is SystemMessage {
  return message.role === 'system' || message.role === 'developer';
}

/** One unmarked text goes as a plain string; several, or any marked, as text blocks. */
function toSystem(parts: readonly TextPart[]): string | JsonRecord[] | undefined {
  const [first] = parts;
  if (parts.length <= 1 && first?.cacheControl === undefined) return first?.text;
  return parts.map((part) => ({ type: 'text', text: part.text, cache_control: part.cacheControl }));
}

/** Blocks that must open their turn: tool results (before any text) and thinking (before the answer). */
const LEADING_BLOCK_TYPES = new Set(['tool_result', 'thinking', 'redacted_thinking']);

/**
 * Tool results must open a user turn (Anthropic rejects text before them) and reasoning an
 * assistant turn; a turn that is a single unmarked text block is sent as a plain string, as
 * Anthropic's own clients do.
 */
function toTurnContent(blocks: readonly JsonRecord[]): string | JsonRecord[] {
  const leads = (block: JsonRecord): boolean => LEADING_BLOCK_TYPES.has(String(block.type));
  const ordered = [...blocks.filter(leads), ...blocks.filter((block) => !leads(block))];
  const [first] = ordered;
  if (ordered.length === 1 && first?.type === 'text' && typeof first.text === 'string' && first.cache_control === undefined) {
    return first.text;
  }
  return ordered;
}

function toBlocks(message: Exclude<ChatMessage, SystemMessage>): JsonRecord[] {
  switch (message.role) {
    case 'user':
      return message.content.flatMap(toContentBlock);
    case 'assistant':
      return [
        ...(message.reasoningBlocks ?? []).flatMap(toAnthropicReasoningBlock),
        ...message.content.flatMap(toContentBlock),
        // Anthropic has no refusal input; kept as text so the history still reads right.
        ...(message.refusal ? [{ type: 'text', text: message.refusal }] : []),
        ...(message.toolCalls ?? []).map(toToolUseBlock),
      ];
    case 'tool':
      return [toToolResultBlock(message)];
  }
}

/**
 * Thinking goes back exactly as it came, signature and all (Anthropic checks it). A block with
 * no signature — reasoning from a provider that does not sign it — would be refused, so it stays out.
 */
export function toAnthropicReasoningBlock(block: ReasoningBlock): JsonRecord[] {
  if (block.type === 'redacted') return [{ type: 'redacted_thinking', data: block.data }];
  return block.signature === undefined ? [] : [{ type: 'thinking', thinking: block.text, signature: block.signature }];
}

/** Empty text blocks are rejected by Anthropic, so they are left out. */
function toContentBlock(part: ContentPart): JsonRecord[] {
  if (part.type === 'text') return part.text === '' ? [] : [{ type: 'text', text: part.text, cache_control: part.cacheControl }];
  return [{ type: 'image', source: toImageSource(part.url), cache_control: part.cacheControl }];
}

function toToolResultBlock(message: ToolMessage): JsonRecord {
  return {
    type: 'tool_result',
    tool_use_id: fitToolCallId(message.toolCallId, ANTHROPIC_TOOL_CALL_IDS),
    content: toToolResultContent(message.content),
    is_error: message.isError === true ? true : undefined,
    cache_control: message.cacheControl,
  };
}

function toToolResultContent(parts: readonly ContentPart[]): string | JsonRecord[] | undefined {
  const [first] = parts;
  if (first === undefined) return undefined;
  if (parts.length === 1 && first.type === 'text' && first.cacheControl === undefined) return first.text;
  return parts.flatMap(toContentBlock);
}

function toImageSource(url: string): JsonRecord {
  if (!url.startsWith('data:')) return { type: 'url', url };
  const { mediaType, data } = base64DataUrl(url, 'Anthropic');
  return { type: 'base64', media_type: mediaType, data };
}

/**
 * `tool_use.input` must be a JSON object, while canonical arguments are the model's raw text.
 * Empty text means "no arguments"; anything else that is not an object cannot be sent
 * faithfully, so the attempt fails as invalid_request (another target may accept it) rather
 * than sending a guessed `{}` that would misstate what the model called.
 */
function toToolUseBlock(call: ToolCall): JsonRecord {
  return {
    type: 'tool_use',
    id: fitToolCallId(call.id, ANTHROPIC_TOOL_CALL_IDS),
    name: call.name,
    input: toolArgumentsObject(call, 'Anthropic'),
    cache_control: call.cacheControl,
  };
}
