import { GatewayError } from '../../errors/gateway-error.js';
import type { ParsedChat } from '../caller-dialect.js';
import type { ChatMessage, ChatRequest, ContentPart, TextPart } from '../../providers/spec.js';
import { readCacheControl } from '../shared/cache-control.js';
import { validateBody } from '../shared/validate-body.js';
import { MODELED_FIELDS, openAiChatBodySchema, type OpenAiChatBody } from './openai-chat-schema.js';

/**
 * An OpenAI Chat Completions body → the canonical request. Invalid input is rejected with a
 * 400 naming the field; nothing is clamped or guessed.
 */
export function parseOpenAiChat(body: unknown): ParsedChat {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new GatewayError('The request body must be a JSON object.', { status: 400, code: 'invalid_request_error' });
  }
  const chat = validateBody(openAiChatBodySchema, body);

  const passthrough: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(chat)) if (!MODELED_FIELDS.has(key)) passthrough[key] = value;
  // `max_completion_tokens` is the newer name; keep which one the caller used for OpenAI targets.
  if (chat.max_completion_tokens != null) passthrough.max_completion_tokens = chat.max_completion_tokens;

  const request: ChatRequest = {
    messages: chat.messages.map(toCanonicalMessage),
    stream: chat.stream === true,
    includeUsage: chat.stream === true && chat.stream_options?.include_usage === true,
  };
  if (chat.tools) {
    request.tools = chat.tools.map(({ function: fn }) => ({
      name: fn.name,
      ...(fn.description === undefined ? {} : { description: fn.description }),
      ...(fn.parameters === undefined ? {} : { parameters: fn.parameters }),
      ...(fn.strict == null ? {} : { strict: fn.strict }),
    }));
  }
  if (chat.tool_choice !== undefined) {
    request.toolChoice = typeof chat.tool_choice === 'string' ? chat.tool_choice : { name: chat.tool_choice.function.name };
  }
  if (chat.parallel_tool_calls !== undefined) request.parallelToolCalls = chat.parallel_tool_calls;
  const maxTokens = chat.max_completion_tokens ?? chat.max_tokens;
  if (maxTokens != null) request.maxOutputTokens = maxTokens;
  if (chat.temperature != null) request.temperature = chat.temperature;
  if (chat.top_p != null) request.topP = chat.top_p;
  if (chat.stop != null) request.stop = typeof chat.stop === 'string' ? [chat.stop] : chat.stop;
  if (chat.response_format) {
    const format = chat.response_format;
    request.responseFormat =
      format.type === 'json_schema'
        ? {
            type: 'json_schema',
            name: format.json_schema.name,
            ...(format.json_schema.schema === undefined ? {} : { schema: format.json_schema.schema }),
            ...(format.json_schema.description === undefined ? {} : { description: format.json_schema.description }),
            ...(format.json_schema.strict == null ? {} : { strict: format.json_schema.strict }),
          }
        : { type: format.type };
  }
  if (chat.user !== undefined) request.user = chat.user;
  if (chat.prompt_cache_key != null) request.promptCacheKey = chat.prompt_cache_key;
  if (Object.keys(passthrough).length > 0) request.passthrough = { dialect: 'openai', fields: passthrough };
  return { requestedModel: chat.model, request };
}

type InboundMessage = OpenAiChatBody['messages'][number];

function toCanonicalMessage(message: InboundMessage): ChatMessage {
  switch (message.role) {
    case 'system':
    case 'developer': {
      const parts = textParts(message.content);
      const content = parts.map((part) => part.text).join('\n');
      // The parts themselves only when they carry cache markers, as from the Anthropic dialect.
      return { role: message.role, content, ...(parts.some((part) => part.cacheControl) ? { parts } : {}) };
    }
    case 'user':
      return {
        role: 'user',
        content: typeof message.content === 'string' ? [text(message.content)] : message.content.map(toCanonicalPart),
        ...(message.name === undefined ? {} : { name: message.name }),
      };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content == null ? [] : textParts(message.content),
        ...(message.tool_calls?.length
          ? { toolCalls: message.tool_calls.map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })) }
          : {}),
        ...(message.refusal == null ? {} : { refusal: message.refusal }),
        ...(message.name === undefined ? {} : { name: message.name }),
      };
    case 'tool':
      return { role: 'tool', toolCallId: message.tool_call_id, content: textParts(message.content) };
  }
}

type InboundUserPart = Exclude<Extract<InboundMessage, { role: 'user' }>['content'], string>[number];

function toCanonicalPart(part: InboundUserPart): ContentPart {
  if (part.type === 'text') return marked(text(part.text), part.cache_control);
  return marked({ type: 'image', url: part.image_url.url, ...(part.image_url.detail ? { detail: part.image_url.detail } : {}) }, part.cache_control);
}

function textParts(content: string | { text: string; cache_control?: unknown }[]): TextPart[] {
  return typeof content === 'string' ? [text(content)] : content.map((part) => marked(text(part.text), part.cache_control));
}

function text(value: string): TextPart {
  return { type: 'text', text: value };
}

/** The part with the caller's cache marker, when it sent one Anthropic would take. */
function marked<T extends ContentPart>(part: T, cacheControl: unknown): T {
  const marker = readCacheControl(cacheControl);
  return marker ? { ...part, cacheControl: marker } : part;
}
