import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../../errors/gateway-error.js';
import type {
  CacheControl,
  ChatMessage,
  ChatRequest,
  ContentPart,
  ReasoningBlock,
  TextPart,
  ToolCall,
  ToolChoice,
} from '../../providers/spec.js';
import { anthropicMessagesBodySchema, MODELED_FIELDS, type AnthropicMessagesBody } from './anthropic-messages-schema.js';
import { validateBody } from '../shared/validate-body.js';
import type { ParsedChat } from '../caller-dialect.js';

/**
 * An Anthropic Messages body (and the caller's `anthropic-beta` header) → the canonical request.
 * Invalid input is rejected with a 400 naming the field; nothing is clamped or guessed.
 */
export function parseAnthropicMessages(body: unknown, headers: IncomingHttpHeaders = {}): ParsedChat {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new GatewayError('The request body must be a JSON object.', { status: 400, code: 'invalid_request_error' });
  }
  const messages = validateBody(anthropicMessagesBodySchema, body);

  const passthrough: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(messages)) if (!MODELED_FIELDS.has(key)) passthrough[key] = value;

  const request: ChatRequest = {
    messages: [
      ...toSystemMessages(messages.system),
      ...messages.messages.flatMap((message, index) =>
        message.role === 'system'
          ? [toConversationEntry(message, sentMessages(body)[index]!, messages.messages.slice(index + 1))]
          : toCanonicalMessages(message),
      ),
    ],
    maxOutputTokens: messages.max_tokens,
    stream: messages.stream === true,
    // Anthropic streams always report usage, so callers of this dialect always get it.
    includeUsage: true,
    // Only signed thinking is shown, and only to a caller that asked for it.
    shownReasoning: messages.thinking != null && messages.thinking.type !== 'disabled' ? 'signed' : 'none',
  };
  if (messages.tools) {
    request.tools = messages.tools.map((tool) =>
      marked(
        {
          name: tool.name,
          ...(tool.description === undefined ? {} : { description: tool.description }),
          parameters: tool.input_schema,
        },
        tool.cache_control,
      ),
    );
  }
  if (messages.tool_choice) {
    const choice = messages.tool_choice;
    request.toolChoice = toCanonicalToolChoice(choice);
    if (choice.type !== 'none' && choice.disable_parallel_tool_use === true) request.parallelToolCalls = false;
  }
  if (messages.stop_sequences !== undefined) request.stop = messages.stop_sequences;
  if (messages.temperature !== undefined) request.temperature = messages.temperature;
  if (messages.top_p !== undefined) request.topP = messages.top_p;
  if (messages.metadata?.user_id != null) request.user = messages.metadata.user_id;
  const schema = messages.output_config?.format?.schema;
  // Structured output for the other providers; `output`, since Anthropic's format has no name.
  if (schema != null) request.responseFormat = { type: 'json_schema', name: 'output', schema };
  const betas = anthropicBetas(headers['anthropic-beta']);
  if (betas.length > 0) request.anthropicBetas = betas;
  if (Object.keys(passthrough).length > 0) request.passthrough = { dialect: 'anthropic', fields: passthrough };
  return { requestedModel: messages.model, request };
}

/** `anthropic-beta: a,b` (or the header twice): the flags, in order. */
function anthropicBetas(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const values = Array.isArray(header) ? header : [header];
  return values.flatMap((value) => value.split(',')).map((flag) => flag.trim()).filter((flag) => flag !== '');
}

type InboundMessage = AnthropicMessagesBody['messages'][number];
type InboundSystemEntry = Extract<InboundMessage, { role: 'system' }>;
type InboundToolChoice = NonNullable<AnthropicMessagesBody['tool_choice']>;
type InboundTextBlock = Extract<NonNullable<AnthropicMessagesBody['system']>, unknown[]>[number];

/** System blocks are joined into one text; the blocks themselves are kept when they carry cache markers. */
function toSystemMessages(system: AnthropicMessagesBody['system']): ChatMessage[] {
  if (typeof system === 'string' || system === undefined) return system ? [{ role: 'system', content: system }] : [];
  const content = system.map((block) => block.text).join('\n');
  if (system.some((block) => block.cache_control)) return [{ role: 'system', content, parts: system.map(textPart) }];
  return content ? [{ role: 'system', content }] : [];
}

/** The body's `messages` as received; validation has already checked that it is an array of objects. */
function sentMessages(body: object): Record<string, unknown>[] {
  return (body as { messages: Record<string, unknown>[] }).messages;
}

/**
 * A `system` entry among the turns. Anthropic gets it back as sent; the others read its text in
 * place or in their system instructions, for as long as Anthropic would show it: an entry to be
 * cleared at the next user message is no longer shown once a later user turn exists.
 */
function toConversationEntry(entry: InboundSystemEntry, sent: Record<string, unknown>, later: readonly InboundMessage[]): ChatMessage {
  const blocks = typeof entry.content === 'string' ? [text(entry.content)] : (entry.content ?? []).map(textPart);
  const content = blocks.map((block) => block.text).join('\n');
  const cleared = entry.clear_at === 'next_user_message' && later.some((message) => message.role === 'user');
  return {
    role: 'system',
    content,
    ...(blocks.some((block) => block.cacheControl) ? { parts: blocks } : {}),
    conversationEntry: { sent, shown: content !== '' && !cleared },
  };
}

/**
 * One Anthropic turn may become several canonical messages: each `tool_result` block is a tool
 * message of its own, placed before the turn's text, as the tool results answer the previous
 * assistant turn.
 */
function toCanonicalMessages(message: Exclude<InboundMessage, InboundSystemEntry>): ChatMessage[] {
  if (typeof message.content === 'string') {
    return message.role === 'user'
      ? [{ role: 'user', content: [text(message.content)] }]
      : [{ role: 'assistant', content: [text(message.content)] }];
  }
  if (message.role === 'assistant') {
    const reasoningBlocks: ReasoningBlock[] = [];
    const content: TextPart[] = [];
    const toolCalls: ToolCall[] = [];
    for (const block of message.content) {
      switch (block.type) {
        case 'thinking':
          reasoningBlocks.push({ type: 'thinking', text: block.thinking, signature: block.signature });
          break;
        case 'redacted_thinking':
          reasoningBlocks.push({ type: 'redacted', data: block.data });
          break;
        case 'text':
          content.push(textPart(block));
          break;
        case 'tool_use':
          toolCalls.push(marked({ id: block.id, name: block.name, arguments: JSON.stringify(block.input) }, block.cache_control));
          break;
      }
    }
    return [
      {
        role: 'assistant',
        ...(reasoningBlocks.length > 0 ? { reasoningBlocks } : {}),
        content,
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
      },
    ];
  }

  const toolMessages: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case 'tool_result':
        toolMessages.push(
          marked(
            {
              role: 'tool',
              toolCallId: block.tool_use_id,
              content: toolResultContent(block.content),
              ...(block.is_error === true ? { isError: true } : {}),
            },
            block.cache_control,
          ),
        );
        break;
      case 'text':
        parts.push(textPart(block));
        break;
      case 'image':
        parts.push(
          marked(
            {
              type: 'image',
              url: block.source.type === 'url' ? block.source.url : `data:${block.source.media_type};base64,${block.source.data}`,
            },
            block.cache_control,
          ),
        );
        break;
    }
  }
  // A turn of tool results only has no user message of its own.
  return parts.length > 0 || toolMessages.length === 0 ? [...toolMessages, { role: 'user', content: parts }] : toolMessages;
}

function toolResultContent(content: string | InboundTextBlock[] | undefined): TextPart[] {
  if (content === undefined) return [];
  return typeof content === 'string' ? [text(content)] : content.map(textPart);
}

function toCanonicalToolChoice(choice: InboundToolChoice): ToolChoice {
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { name: choice.name };
  }
}

function text(value: string): TextPart {
  return { type: 'text', text: value };
}

function textPart(block: InboundTextBlock): TextPart {
  return marked(text(block.text), block.cache_control);
}

/** The canonical value with the block's cache marker, if it had one (`null` says it has none). */
function marked<T extends object>(value: T, cacheControl: CacheControl | null | undefined): T & { cacheControl?: CacheControl } {
  return cacheControl ? { ...value, cacheControl } : value;
}
