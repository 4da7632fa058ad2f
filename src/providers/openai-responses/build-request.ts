import type { ChatMessage, ChatRequest, ResponseFormat, TargetContext, ToolChoice, UpstreamRequest } from '../spec.js';
import { isRecord, type JsonRecord } from '../shared/json-fields.js';
import { joinUrl } from '../shared/join-url.js';
import { promptCacheKeyOf } from '../shared/prompt-cache-key.js';
import { spliceTopLevel, type MemberEdit } from '../shared/splice-json.js';

export interface ResponsesRequestOptions {
  /** The provider this adapter calls (`connections.*.provider`): encrypted reasoning of another never reaches it. */
  origin: string;
  /** The Responses path under the target's base URL. */
  path: string;
  /** Whether the target takes `prompt_cache_key` (OpenAI and Azure OpenAI; not the mock). */
  promptCacheKey: boolean;
}

/**
 * The `/responses` request. A Responses caller's body goes as it came — hosted tools, reasoning
 * items, fields the canonical request does not model — with the target's model; any other
 * caller's canonical request is translated.
 */
export function buildOpenAiResponsesRequest(request: ChatRequest, target: TargetContext, options: ResponsesRequestOptions): UpstreamRequest {
  const body = request.responsesBody === undefined ? translated(request) : callerBody(request.responsesBody, options.origin);
  body.model = target.routedModel;
  body.stream = request.stream;
  // The caller's key, or its session's, bounded to what OpenAI takes; none for a target without the field.
  body.prompt_cache_key = options.promptCacheKey ? promptCacheKeyOf(request) : undefined;
  return responsesRequest(JSON.stringify(body), target, options);
}

/**
 * A Responses caller's own body for this target, edited where the gateway decides: the routed
 * model, the output cap (a budget may have lowered it), `stream`, the cache key where the target
 * takes one, and no `previous_response_id` (a body that named a stored response was expanded, so
 * never comes here as text). Everything else goes as the caller wrote it. Undefined (build it)
 * for a body holding a reasoning item's `origin`, the gateway's own field that no provider sees.
 */
export function relayOpenAiResponsesRequest(text: string, request: ChatRequest, target: TargetContext, options: ResponsesRequestOptions): UpstreamRequest | undefined {
  // A key, never escaped as a string's content would be: a cheap and safe test.
  if (text.includes('"origin"')) return undefined;
  const edits: Record<string, MemberEdit> = {
    model: JSON.stringify(target.routedModel),
    previous_response_id: undefined,
    // Left as written when it says what the request is (absent means not streamed).
    stream: (present) => (present === undefined && !request.stream ? undefined : String(request.stream)),
  };
  const cap = request.maxOutputTokens;
  if (cap !== undefined) edits.max_output_tokens = (present) => (present !== undefined && Number(present) === cap ? present : String(cap));
  const cacheKey = options.promptCacheKey ? promptCacheKeyOf(request) : undefined;
  if (cacheKey !== undefined) edits.prompt_cache_key = JSON.stringify(cacheKey);
  else if (!options.promptCacheKey) edits.prompt_cache_key = undefined;
  return responsesRequest(spliceTopLevel(text, edits), target, options);
}

/** `POST {base_url}{path}` with `body`, built or relayed. */
function responsesRequest(body: string, target: TargetContext, options: ResponsesRequestOptions): UpstreamRequest {
  return { url: joinUrl(target.baseUrl, options.path), method: 'POST', headers: { 'content-type': 'application/json' }, body };
}

/**
 * The caller's body, less what the gateway answers itself (`previous_response_id` is expanded
 * into the input before this point) and less reasoning another provider made: a reasoning item
 * the gateway put back into the conversation names its provider in `origin`, a gateway field no
 * provider sees.
 */
function callerBody(sent: Readonly<Record<string, unknown>>, origin: string): JsonRecord {
  const body: JsonRecord = { ...sent };
  delete body.previous_response_id;
  if (Array.isArray(body.input)) {
    body.input = body.input.flatMap((item: unknown) => {
      if (!isRecord(item) || item.type !== 'reasoning' || item.origin === undefined) return [item];
      const { origin: itemOrigin, ...rest } = item;
      return itemOrigin === origin ? [rest] : [];
    });
  }
  return body;
}

function translated(request: ChatRequest): JsonRecord {
  const body: JsonRecord = { input: request.messages.flatMap(toInputItems), store: false };
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({ type: 'function', name: tool.name, description: tool.description, parameters: tool.parameters, strict: tool.strict ?? false }));
    if (request.toolChoice !== undefined) body.tool_choice = toToolChoice(request.toolChoice);
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  }
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.responseFormat !== undefined) body.text = { format: toTextFormat(request.responseFormat) };
  if (request.user !== undefined) body.user = request.user;
  return body;
}

function toInputItems(message: ChatMessage): JsonRecord[] {
  switch (message.role) {
    case 'system':
    case 'developer':
      return [{ type: 'message', role: message.role, content: message.content }];
    case 'user':
      return [
        {
          type: 'message',
          role: 'user',
          content: message.content.map((part) =>
            part.type === 'text' ? { type: 'input_text', text: part.text } : { type: 'input_image', image_url: part.url, detail: part.detail ?? 'auto' },
          ),
        },
      ];
    case 'assistant': {
      const content: JsonRecord[] = message.content.map((part) => ({ type: 'output_text', text: part.text, annotations: [] }));
      if (message.refusal !== undefined) content.push({ type: 'refusal', refusal: message.refusal });
      const items: JsonRecord[] = content.length > 0 ? [{ type: 'message', role: 'assistant', content }] : [];
      for (const call of message.toolCalls ?? []) items.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments });
      return items;
    }
    case 'tool':
      return [{ type: 'function_call_output', call_id: message.toolCallId, output: message.content.map((part) => part.text).join('') }];
  }
}

function toToolChoice(choice: ToolChoice): string | JsonRecord {
  return typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
}

function toTextFormat(format: ResponseFormat): JsonRecord {
  if (format.type !== 'json_schema') return { type: format.type };
  return { type: 'json_schema', name: format.name, description: format.description, schema: format.schema, strict: format.strict };
}

