import { GatewayError } from '../errors/gateway-error.js';
import type { ChatMessage, ChatRequest, ContentPart, TextPart, ToolCall, ToolChoice } from '../providers/spec.js';
import { anthropicMessagesBodySchema, MODELED_FIELDS, type AnthropicMessagesBody } from './anthropic-messages-schema.js';
import { describeValidationError } from './describe-validation-error.js';
import type { ParsedChat } from './parse-openai-chat.js';

/**
 * An Anthropic Messages body → the canonical request. Invalid input is rejected with a 400
 * naming the field; nothing is clamped or guessed.
 */
export function parseAnthropicMessages(body: unknown): ParsedChat {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new GatewayError('The request body must be a JSON object.', { status: 400, code: 'invalid_request_error' });
  }
  // reportInput lets the error tell a missing field from a wrong type (the value is never echoed).
  const parsed = anthropicMessagesBodySchema.safeParse(body, { reportInput: true });
  if (!parsed.success) throw describeValidationError(parsed.error);
  const messages = parsed.data;

  const passthrough: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(messages)) if (!MODELED_FIELDS.has(key)) passthrough[key] = value;

  const request: ChatRequest = {
    messages: [...toSystemMessages(messages.system), ...messages.messages.flatMap(toCanonicalMessages)],
    maxOutputTokens: messages.max_tokens,
    stream: messages.stream === true,
    // Anthropic streams always report usage, so callers of this dialect always get it.
    includeUsage: true,
  };
  if (messages.tools) {
    request.tools = messages.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.input_schema,
    }));
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
  if (Object.keys(passthrough).length > 0) request.passthrough = { dialect: 'anthropic', fields: passthrough };
  return { requestedModel: messages.model, request };
}

type InboundMessage = AnthropicMessagesBody['messages'][number];
type InboundToolChoice = NonNullable<AnthropicMessagesBody['tool_choice']>;

function toSystemMessages(system: AnthropicMessagesBody['system']): ChatMessage[] {
  const content = typeof system === 'string' ? system : system?.map((block) => block.text).join('\n');
  return content ? [{ role: 'system', content }] : [];
}

/**
 * One Anthropic turn may become several canonical messages: each `tool_result` block is a tool
 * message of its own, placed before the turn's text, as the tool results answer the previous
 * assistant turn.
 */
function toCanonicalMessages(message: InboundMessage): ChatMessage[] {
  if (typeof message.content === 'string') {
    return message.role === 'user'
      ? [{ role: 'user', content: [text(message.content)] }]
      : [{ role: 'assistant', content: [text(message.content)] }];
  }
  if (message.role === 'assistant') {
    const content: TextPart[] = [];
    const toolCalls: ToolCall[] = [];
    for (const block of message.content) {
      if (block.type === 'text') content.push(text(block.text));
      else if (block.type === 'tool_use') toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input) });
    }
    return [{ role: 'assistant', content, ...(toolCalls.length > 0 ? { toolCalls } : {}) }];
  }

  const toolMessages: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case 'tool_result':
        toolMessages.push({
          role: 'tool',
          toolCallId: block.tool_use_id,
          content: toolResultContent(block.content),
          ...(block.is_error === true ? { isError: true } : {}),
        });
        break;
      case 'text':
        parts.push(text(block.text));
        break;
      case 'image':
        parts.push({
          type: 'image',
          url: block.source.type === 'url' ? block.source.url : `data:${block.source.media_type};base64,${block.source.data}`,
        });
        break;
    }
  }
  // A turn of tool results only has no user message of its own.
  return parts.length > 0 || toolMessages.length === 0 ? [...toolMessages, { role: 'user', content: parts }] : toolMessages;
}

function toolResultContent(content: string | { text: string }[] | undefined): TextPart[] {
  if (content === undefined) return [];
  return typeof content === 'string' ? [text(content)] : content.map((block) => text(block.text));
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
