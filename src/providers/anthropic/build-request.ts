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
import { spliceTopLevel } from '../shared/splice-json.js';
import { ANTHROPIC_TOOL_CALL_IDS, toolCallIdsFit } from '../shared/tool-call-ids.js';
import { keepLastCacheBreakpoints } from './cache-breakpoints.js';
import { toAnthropicConversation } from './to-anthropic-messages.js';

/** Sent when the caller gave no output limit: Anthropic requires `max_tokens`. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;
const ANTHROPIC_VERSION = '2023-06-01';

export function buildAnthropicRequest(request: ChatRequest, target: TargetContext): UpstreamRequest {
  return messagesRequest(JSON.stringify(buildMessagesBody(request, { model: target.routedModel })), request, target);
}

/** `POST /v1/messages` with `body`, translated or relayed. */
function messagesRequest(body: string, request: ChatRequest, target: TargetContext): UpstreamRequest {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'anthropic-version': ANTHROPIC_VERSION, ...anthropicBetaHeader(request) };
  return { url: joinUrl(target.baseUrl, '/v1/messages'), method: 'POST', headers, body };
}

/**
 * A Messages caller's own body for this target, edited where the gateway decides: the routed model
 * and the output cap (a budget may have lowered it; Anthropic requires one). Everything else —
 * cache markers, thinking blocks and their signatures, fields of betas — goes as the caller wrote
 * it. Undefined (translate it) when a tool-call id another provider minted is one Anthropic refuses.
 */
export function relayAnthropicRequest(text: string, request: ChatRequest, target: TargetContext): UpstreamRequest | undefined {
  if (!toolCallIdsFit(request.messages, ANTHROPIC_TOOL_CALL_IDS)) return undefined;
  return messagesRequest(spliceTopLevel(text, { model: JSON.stringify(target.routedModel), max_tokens: String(request.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS) }), request, target);
}

/** Body fields such as `context_management` only work with the beta that enables them. */
export function anthropicBetaHeader(request: ChatRequest): Record<string, string> {
  return request.anthropicBetas === undefined ? {} : { 'anthropic-beta': request.anthropicBetas.join(',') };
}

/**
 * The Messages API body, opening with `leading` (the model on Anthropic's API; on Vertex, where
 * the model is in the URL, the API version).
 */
export function buildMessagesBody(request: ChatRequest, leading: JsonRecord): JsonRecord {
  const { system, messages } = toAnthropicConversation(request.messages);
  const body: JsonRecord = {
    ...leading,
    max_tokens: request.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    system,
    messages,
  };
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map(toAnthropicTool);
    body.tool_choice = toAnthropicToolChoice(request.toolChoice, request.parallelToolCalls);
  }
  if (request.stop !== undefined && request.stop.length > 0) body.stop_sequences = request.stop;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.user !== undefined) body.metadata = { user_id: request.user };
  const format = toOutputFormat(request.responseFormat);
  // A caller of this dialect who sent `output_config` (with `effort`, say) gets it passed on as sent.
  const callerOutputConfig = request.passthrough?.dialect === 'anthropic' && request.passthrough.fields.output_config !== undefined;
  if (format !== undefined && !callerOutputConfig) body.output_config = { format };
  if (request.stream) body.stream = true;

  mergePassthrough(body, request, 'anthropic');
  keepLastCacheBreakpoints(body);
  return body;
}

/**
 * `strict` is not forwarded: Anthropic supports strict tool use only on its newer models and
 * OpenAI clients often set it by default, which would make every request to an older Claude
 * model fail.
 */
function toAnthropicTool(tool: ToolDefinition): JsonRecord {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters ?? { type: 'object', properties: {} },
    cache_control: tool.cacheControl,
  };
}

function toAnthropicToolChoice(
  choice: ToolChoice | undefined,
  parallelToolCalls: boolean | undefined,
): JsonRecord | undefined {
  // `none` has no parallelism flag.
  if (choice === 'none') return { type: 'none' };
  const base =
    choice === undefined || choice === 'auto'
      ? { type: 'auto' }
      : choice === 'required'
        ? { type: 'any' }
        : { type: 'tool', name: choice.name };
  if (parallelToolCalls === false) return { ...base, disable_parallel_tool_use: true };
  return choice === undefined ? undefined : base;
}

/**
 * A JSON schema becomes Anthropic structured output (`output_config.format`, GA without a
 * beta header; models that lack it answer 400, which fails over). `json_object` has no
 * Anthropic equivalent — structured output needs a schema — so it is left to the prompt,
 * which OpenAI already requires to ask for JSON.
 */
function toOutputFormat(format: ResponseFormat | undefined): JsonRecord | undefined {
  if (format?.type !== 'json_schema' || format.schema === undefined) return undefined;
  return { type: 'json_schema', schema: format.schema };
}
