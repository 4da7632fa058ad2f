import { mapAnthropicStopReason } from '../../providers/anthropic/stop-reason.js';
import { toAnthropicReasoningBlock } from '../../providers/anthropic/to-anthropic-messages.js';
import { isRecord, type JsonRecord } from '../../providers/shared/json-fields.js';
import { parseJson } from '../../providers/shared/parse-json.js';
import type { ChatResult, FinishReason, ToolCall } from '../../providers/spec.js';
import type { Usage } from '../../core/usage.js';

/** Anthropic message ids start with `msg_`; an upstream id of another shape is replaced. */
export function anthropicMessageId(upstreamId: string | undefined, fallbackId: string): string {
  return upstreamId?.startsWith('msg_') ? upstreamId : `msg_${fallbackId}`;
}

/** The stop reasons the Messages API itself uses; an Anthropic upstream's own word is kept. */
const ANTHROPIC_STOP_REASONS = new Set([
  'end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal', 'model_context_window_exceeded',
]);

const STOP_REASON_BY_FINISH: Record<Exclude<FinishReason, 'stop'>, string> = {
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
  // Anthropic has no error stop (its errors are error events); the turn simply ended.
  error: 'end_turn',
};

/** The canonical finish → Anthropic `stop_reason`. */
export function toAnthropicStopReason(finish: {
  reason: FinishReason;
  providerReason?: string | undefined;
  stopSequence?: string | undefined;
}): string {
  // `pause_turn` or `model_context_window_exceeded` from an Anthropic upstream survive the trip,
  // as long as the provider's word still means the canonical reason.
  const { providerReason } = finish;
  if (providerReason !== undefined && ANTHROPIC_STOP_REASONS.has(providerReason) && mapAnthropicStopReason(providerReason) === finish.reason) {
    if (providerReason !== 'stop_sequence' || finish.stopSequence !== undefined) return providerReason;
  }
  if (finish.reason === 'stop') return finish.stopSequence === undefined ? 'end_turn' : 'stop_sequence';
  return STOP_REASON_BY_FINISH[finish.reason];
}

/** Canonical usage → Anthropic's, whose `input_tokens` leaves out cache reads and writes. */
export function toAnthropicUsage(usage: Usage | undefined): Record<string, number> {
  const cacheRead = usage?.cacheReadTokens ?? 0;
  const cacheWrite = usage?.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.inputTokens ?? 0) - cacheRead - cacheWrite),
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
    output_tokens: usage?.outputTokens ?? 0,
  };
}

/**
 * A complete answer as an Anthropic Messages response body. Thinking comes first, and only as
 * signed blocks: a client sends them back, and Anthropic refuses thinking it did not sign, so
 * reasoning from other providers (the bare `reasoning` text) is not shown.
 */
export function renderAnthropicMessage(result: ChatResult, options: { fallbackId: string }): Record<string, unknown> {
  const content = (result.reasoningBlocks ?? []).flatMap(toAnthropicReasoningBlock);
  if (result.text !== '') content.push({ type: 'text', text: result.text });
  // Anthropic has no refusal field: an OpenAI-style refusal is what the model said, so it is text.
  if (result.refusal) content.push({ type: 'text', text: result.refusal });
  for (const call of result.toolCalls) content.push({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call) });
  return {
    id: anthropicMessageId(result.id, options.fallbackId),
    type: 'message',
    role: 'assistant',
    model: result.responseModel,
    content,
    stop_reason: toAnthropicStopReason({
      reason: result.finishReason,
      providerReason: result.providerFinishReason,
      stopSequence: result.stopSequence,
    }),
    stop_sequence: result.stopSequence ?? null,
    usage: toAnthropicUsage(result.usage),
  };
}

/**
 * `input` must be an object, while canonical arguments are the model's raw text. Text that is
 * not a JSON object (a model's malformed output) becomes `{}`: the answer is already made, and
 * failing it here would throw away the rest of the response.
 */
function toolInput(call: ToolCall): JsonRecord {
  const parsed = parseJson(call.arguments);
  return parsed.ok && isRecord(parsed.value) ? parsed.value : {};
}
