import type {
  ChatRequest,
  ResponseFormat,
  TargetContext,
  ToolChoice,
  ToolDefinition,
  UpstreamRequest,
} from '../spec.js';
import type { JsonRecord } from '../shared/json-fields.js';
import { joinUrl } from '../shared/join-url.js';
import { mergePassthrough } from '../shared/merge-passthrough.js';
import { promptCacheKeyOf } from '../shared/prompt-cache-key.js';
import { spliceTopLevel, type MemberEdit } from '../shared/splice-json.js';
import { toolCallIdsFit, type ToolCallIdRule } from '../shared/tool-call-ids.js';
import { toOpenAiMessages } from './to-openai-messages.js';

export interface OpenAiRequestOptions {
  /** Top-level body fields the target rejects, removed last. */
  dropParams: readonly string[];
  /** The tool-call ids the target accepts. */
  toolCallIds: ToolCallIdRule;
  /** Whether the target takes `prompt_cache_key`; for one that does not, it is left out even when the caller sent it. */
  promptCacheKey: boolean;
}

// Decided by the canonical request, so a passthrough copy must not bring them back:
// the two output-limit synonyms must never both be sent, `stream_options` is only
// valid (and always set) when streaming, and `prompt_cache_key` goes only where it is taken.
const DECIDED_BY_ADAPTER = new Set(['max_tokens', 'max_completion_tokens', 'stream_options', 'prompt_cache_key']);

export function buildOpenAiRequest(
  request: ChatRequest,
  target: TargetContext,
  options: OpenAiRequestOptions,
): UpstreamRequest {
  const body: JsonRecord = {
    model: target.routedModel,
    messages: toOpenAiMessages(request.messages, options.toolCallIds),
  };
  // OpenAI rejects `tool_choice` and `parallel_tool_calls` when no tools are given.
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map(toOpenAiTool);
    if (request.toolChoice !== undefined) body.tool_choice = toOpenAiToolChoice(request.toolChoice);
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  }
  if (request.maxOutputTokens !== undefined) {
    body[outputLimitParam(request, options.dropParams)] = request.maxOutputTokens;
  }
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stop !== undefined && request.stop.length > 0) body.stop = request.stop;
  if (request.responseFormat !== undefined) body.response_format = toOpenAiResponseFormat(request.responseFormat);
  if (request.user !== undefined) body.user = request.user;
  if (options.promptCacheKey) body.prompt_cache_key = promptCacheKeyOf(request);
  body.stream = request.stream;
  // Usage is always requested upstream (metering needs it); whether the caller sees the
  // usage chunk is `includeUsage`, decided by the caller dialect's renderer.
  if (request.stream) body.stream_options = { include_usage: true };

  mergePassthrough(body, request, 'openai', DECIDED_BY_ADAPTER);
  for (const name of options.dropParams) delete body[name];

  return chatCompletionsRequest(JSON.stringify(body), target);
}

/**
 * A Chat Completions caller's own body for this target, edited where the gateway decides: the
 * routed model, the output cap under the name the target takes (a budget may have lowered it),
 * the usage chunk asked for on a stream (metering needs it), the cache key where the target takes
 * one, and none of the fields it refuses. Everything else goes as the caller wrote it. Undefined
 * (translate it) for a body with cache markers, which OpenAI-wire targets are never sent (clients
 * put them there for Claude; strict hosts refuse them), or with a tool-call id the host would refuse.
 */
export function relayOpenAiRequest(text: string, request: ChatRequest, target: TargetContext, options: OpenAiRequestOptions): UpstreamRequest | undefined {
  // A key, never escaped as a string's content would be: a cheap and safe test.
  if (text.includes('"cache_control"') || !toolCallIdsFit(request.messages, options.toolCallIds)) return undefined;
  const edits: Record<string, MemberEdit> = { model: JSON.stringify(target.routedModel) };
  if (request.maxOutputTokens !== undefined) {
    const param = outputLimitParam(request, options.dropParams);
    edits.max_tokens = undefined;
    edits.max_completion_tokens = undefined;
    edits[param] = String(request.maxOutputTokens);
  }
  if (!request.stream) edits.stream_options = undefined;
  else if (!request.includeUsage) edits.stream_options = withUsageAskedFor;
  const cacheKey = options.promptCacheKey ? promptCacheKeyOf(request) : undefined;
  if (cacheKey !== undefined) edits.prompt_cache_key = JSON.stringify(cacheKey);
  else if (!options.promptCacheKey) edits.prompt_cache_key = undefined;
  for (const name of options.dropParams) edits[name] = undefined;
  return chatCompletionsRequest(spliceTopLevel(text, edits), target);
}

/** `POST /chat/completions` with `body`, translated or relayed. */
function chatCompletionsRequest(body: string, target: TargetContext): UpstreamRequest {
  return { url: joinUrl(target.baseUrl, '/chat/completions'), method: 'POST', headers: { 'content-type': 'application/json' }, body };
}

function withUsageAskedFor(present: string | undefined): string {
  const options = present === undefined ? {} : (JSON.parse(present) as Record<string, unknown> | null);
  return JSON.stringify({ ...options, include_usage: true });
}

/**
 * `max_tokens` and `max_completion_tokens` mean the same thing, and hosts disagree on which
 * they accept: OpenAI deprecated `max_tokens` (its reasoning models reject it), many
 * compatible hosts know only `max_tokens`. The rule:
 * 1. a target whose `dropParams` names one of the two gets the other;
 * 2. otherwise the name the caller used — the inbound parser signals `max_completion_tokens`
 *    by keeping that key in the OpenAI passthrough fields;
 * 3. otherwise `max_tokens`, the name every compatible host knows.
 */
function outputLimitParam(
  request: ChatRequest,
  dropParams: readonly string[],
): 'max_tokens' | 'max_completion_tokens' {
  if (dropParams.includes('max_completion_tokens')) return 'max_tokens';
  if (dropParams.includes('max_tokens')) return 'max_completion_tokens';
  const callerUsedCompletionTokens =
    request.passthrough?.dialect === 'openai' && 'max_completion_tokens' in request.passthrough.fields;
  return callerUsedCompletionTokens ? 'max_completion_tokens' : 'max_tokens';
}

function toOpenAiTool(tool: ToolDefinition): JsonRecord {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters, strict: tool.strict },
  };
}

function toOpenAiToolChoice(choice: ToolChoice): string | JsonRecord {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

function toOpenAiResponseFormat(format: ResponseFormat): JsonRecord {
  if (format.type !== 'json_schema') return { type: format.type };
  return {
    type: 'json_schema',
    json_schema: { name: format.name, description: format.description, schema: format.schema, strict: format.strict },
  };
}
