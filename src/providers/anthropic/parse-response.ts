import { FailureKind } from '../../core/failure-kind.js';
import { UpstreamFailureError, type ChatResult, type ReasoningBlock, type ToolCall } from '../spec.js';
import { isRecord, readArray, readRecord, readString, type JsonRecord } from '../shared/json-fields.js';
import { classifyAnthropicError, readAnthropicErrorDetails } from './parse-error.js';
import { mapAnthropicStopReason } from './stop-reason.js';
import { readAnthropicUsageCounts, toCanonicalUsage } from './usage.js';

/** A Messages API JSON body → canonical result; throws `UpstreamFailureError` for error bodies. */
export function parseAnthropicResponse(body: unknown): ChatResult {
  if (!isRecord(body)) throw unexpectedShape('the response body is not a JSON object');
  if (readString(body, 'type') === 'error') {
    const details = readAnthropicErrorDetails(body) ?? { message: 'Anthropic answered with an error body.' };
    throw new UpstreamFailureError(classifyAnthropicError(details));
  }
  const content = readArray(body, 'content');
  if (content === undefined) throw unexpectedShape('the response has no content array');

  const blocks = content.filter(isRecord);
  const stopReason = readString(body, 'stop_reason');
  const usage = readRecord(body, 'usage');
  const reasoning = textOf(blocks, 'thinking', 'thinking');
  const reasoningBlocks = blocks.flatMap(toReasoningBlock);
  return {
    id: readString(body, 'id') ?? '',
    responseModel: readString(body, 'model') ?? '',
    text: textOf(blocks, 'text', 'text'),
    reasoning: reasoning === '' ? undefined : reasoning,
    reasoningBlocks: reasoningBlocks.length === 0 ? undefined : reasoningBlocks,
    toolCalls: blocks.filter((block) => block.type === 'tool_use').map(toToolCall),
    finishReason: mapAnthropicStopReason(stopReason),
    providerFinishReason: stopReason,
    stopSequence: readString(body, 'stop_sequence'),
    usage: usage === undefined ? undefined : toCanonicalUsage(readAnthropicUsageCounts(usage)),
  };
}

function textOf(blocks: readonly JsonRecord[], blockType: string, field: string): string {
  return blocks
    .filter((block) => block.type === blockType)
    .map((block) => readString(block, field) ?? '')
    .join('');
}

/** Thinking with its signature (the text may be empty when the request asked for it omitted), and redacted thinking. */
function toReasoningBlock(block: JsonRecord): ReasoningBlock[] {
  if (block.type === 'redacted_thinking') return [{ type: 'redacted', data: readString(block, 'data') ?? '' }];
  if (block.type !== 'thinking') return [];
  return [{ type: 'thinking', text: readString(block, 'thinking') ?? '', signature: readString(block, 'signature') }];
}

function toToolCall(block: JsonRecord): ToolCall {
  return {
    id: readString(block, 'id') ?? '',
    name: readString(block, 'name') ?? '',
    arguments: JSON.stringify(block.input ?? {}),
  };
}

function unexpectedShape(detail: string): UpstreamFailureError {
  return new UpstreamFailureError({
    kind: FailureKind.serverError,
    message: `Unexpected Messages API response: ${detail}.`,
  });
}
