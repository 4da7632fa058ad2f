import { GatewayError } from '../../errors/gateway-error.js';
import type { ParsedChat } from '../caller-dialect.js';
import type { AssistantMessage, ChatMessage, ChatRequest, ContentPart, TextPart, ToolDefinition } from '../../providers/spec.js';
import { validateBody } from '../shared/validate-body.js';
import { openAiResponsesBodySchema, type OpenAiResponsesBody, type ResponsesInputItem, type ResponsesTool } from './openai-responses-schema.js';
import { namespacedToolName } from './namespaced-tool-name.js';
import type { ResponsesEcho } from './responses-echo.js';

/**
 * An OpenAI Responses body → the canonical request, for a translated target, with the body
 * itself for a target on its own Responses API (OpenAI, Azure OpenAI). Invalid input is a 400
 * naming the field; what a translated target cannot take — hosted tools, reasoning items, fields
 * the canonical request does not model — is left out rather than refused, as the Responses
 * clients expect. A `previous_response_id` was expanded into the whole conversation before this
 * (`expandConversation`).
 */
export function parseOpenAiResponses(body: unknown): ParsedChat {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new GatewayError('The request body must be a JSON object.', { status: 400, code: 'invalid_request_error' });
  }
  const responses = validateBody(openAiResponsesBodySchema, body);
  const messages: ChatMessage[] = [];
  if (responses.instructions != null && responses.instructions !== '') messages.push({ role: 'system', content: responses.instructions });
  if (typeof responses.input === 'string') messages.push({ role: 'user', content: [text(responses.input)] });
  else appendItems(messages, responses.input);
  if (!messages.some((message) => message.role !== 'system' && message.role !== 'developer')) {
    throw new GatewayError('Invalid request: input: no message or function call output a model can answer.', {
      status: 400,
      code: 'invalid_request_error',
      param: 'input',
    });
  }

  const summaryAsked = responses.reasoning?.summary != null;
  const request: ChatRequest = {
    messages,
    stream: responses.stream === true,
    // A Responses stream always ends with usage (on `response.completed`).
    includeUsage: responses.stream === true,
    shownReasoning: summaryAsked ? 'all' : 'none',
    responsesBody: body as Record<string, unknown>,
  };
  const { tools, dropped } = flattenTools(responses.tools ?? []);
  if (tools.length > 0) request.tools = tools;
  const toolChoice = responses.tool_choice;
  if (typeof toolChoice === 'string') request.toolChoice = toolChoice;
  else if (toolChoice?.type === 'function') {
    const { name, namespace } = toolChoice as { name: string; namespace?: unknown };
    request.toolChoice = { name: typeof namespace === 'string' ? namespacedToolName(namespace, name) : name };
  }
  if (responses.parallel_tool_calls != null) request.parallelToolCalls = responses.parallel_tool_calls;
  if (responses.max_output_tokens != null) request.maxOutputTokens = responses.max_output_tokens;
  if (responses.temperature != null) request.temperature = responses.temperature;
  if (responses.top_p != null) request.topP = responses.top_p;
  const format = responses.text?.format;
  if (format) {
    request.responseFormat =
      format.type === 'json_schema'
        ? {
            type: 'json_schema',
            name: format.name,
            schema: format.schema,
            ...(format.description == null ? {} : { description: format.description }),
            ...(format.strict == null ? {} : { strict: format.strict }),
          }
        : { type: format.type };
  }
  if (responses.user != null) request.user = responses.user;
  if (responses.prompt_cache_key != null) request.promptCacheKey = responses.prompt_cache_key;
  // Chat Completions spells the effort `reasoning_effort`; OpenAI-dialect targets get it so.
  if (responses.reasoning?.effort != null) request.passthrough = { dialect: 'openai', fields: { reasoning_effort: responses.reasoning.effort } };

  return { requestedModel: responses.model, request, ...(dropped.length > 0 ? { droppedTools: dropped } : {}), echo: echoOf(responses) };
}

/**
 * Input items → canonical turns. Function calls join the assistant turn before them (Chat
 * and Anthropic carry a turn's text and its calls in one message); reasoning items and item types
 * the gateway does not model are left out.
 */
function appendItems(messages: ChatMessage[], items: readonly ResponsesInputItem[]): void {
  let openAssistant: AssistantMessage | undefined;
  for (const item of items) {
    const type = item.type ?? 'message';
    if (type === 'function_call') {
      const call = item as { call_id: string; name: string; namespace?: string | null; arguments: string };
      if (!openAssistant) {
        openAssistant = { role: 'assistant', content: [] };
        messages.push(openAssistant);
      }
      const name = call.namespace ? namespacedToolName(call.namespace, call.name) : call.name;
      (openAssistant.toolCalls ??= []).push({ id: call.call_id, name, arguments: call.arguments });
      continue;
    }
    if (type === 'function_call_output') {
      const output = item as { call_id: string; output: string | { type: string; text?: string }[] };
      const content: TextPart[] =
        typeof output.output === 'string' ? [text(output.output)] : output.output.flatMap((part) => (part.type === 'input_text' ? [text(part.text!)] : []));
      messages.push({ role: 'tool', toolCallId: output.call_id, content });
      openAssistant = undefined;
      continue;
    }
    if (type !== 'message') continue;
    const message = item as { role: 'user' | 'assistant' | 'system' | 'developer'; content: string | Part[] };
    if (message.role === 'system' || message.role === 'developer') {
      messages.push({ role: message.role, content: joinText(message.content) });
      openAssistant = undefined;
    } else if (message.role === 'user') {
      messages.push({ role: 'user', content: typeof message.content === 'string' ? [text(message.content)] : message.content.flatMap(toUserPart) });
      openAssistant = undefined;
    } else {
      openAssistant = { role: 'assistant', content: assistantText(message.content) };
      const refusal = typeof message.content === 'string' ? undefined : message.content.find((part) => part.type === 'refusal');
      if (refusal) openAssistant.refusal = refusal.refusal!;
      messages.push(openAssistant);
    }
  }
}

type Part = { type: string; text?: string; refusal?: string; image_url?: string; detail?: 'auto' | 'low' | 'high' | null };

function toUserPart(part: Part): ContentPart[] {
  if (part.type === 'input_image') return [{ type: 'image', url: part.image_url!, ...(part.detail ? { detail: part.detail } : {}) }];
  if (part.type === 'refusal') return [];
  return [text(part.text!)];
}

function assistantText(content: string | Part[]): TextPart[] {
  if (typeof content === 'string') return [text(content)];
  return content.flatMap((part) => (part.text === undefined ? [] : [text(part.text)]));
}

function joinText(content: string | Part[]): string {
  return typeof content === 'string' ? content : content.flatMap((part) => (part.text === undefined ? [] : [part.text])).join('\n');
}

/**
 * Function tools as they are; the functions of a `namespace` group as tools of their own, named
 * `<namespace>__<name>` (the group's description leads each one's); every other tool type is
 * dropped and named, once each, for `x-switchyard-dropped-tools`.
 */
function flattenTools(tools: readonly ResponsesTool[]): { tools: ToolDefinition[]; dropped: string[] } {
  const flat: ToolDefinition[] = [];
  const dropped = new Set<string>();
  const add = (tool: Record<string, unknown>, name: string, lead?: string | null) => {
    const description = [lead, tool.description].filter((part): part is string => typeof part === 'string' && part !== '').join('\n\n');
    flat.push({
      name,
      ...(description === '' ? {} : { description }),
      ...(tool.parameters == null ? {} : { parameters: tool.parameters as Record<string, unknown> }),
      ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
    });
  };
  for (const tool of tools) {
    if (tool.type === 'function') add(tool, (tool as { name: string }).name);
    else if (tool.type === 'namespace') {
      const group = tool as { name: string; description?: string | null; tools: { type: string; name?: unknown }[] };
      for (const member of group.tools) {
        if (member.type === 'function') add(member, namespacedToolName(group.name, member.name as string), group.description);
        else dropped.add(`${group.name}.${member.type}`);
      }
    } else dropped.add(tool.type);
  }
  return { tools: flat, dropped: [...dropped] };
}

export function echoOf(body: OpenAiResponsesBody): ResponsesEcho {
  return {
    instructions: body.instructions ?? null,
    previous_response_id: body.previous_response_id ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? null },
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: {
      format: body.text?.format ?? { type: 'text' },
      ...(typeof body.text?.verbosity === 'string' ? { verbosity: body.text.verbosity } : {}),
    },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    user: body.user ?? null,
    metadata: body.metadata ?? {},
  };
}

function text(value: string): TextPart {
  return { type: 'text', text: value };
}
