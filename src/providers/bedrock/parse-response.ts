import { FailureKind } from '../../core/failure-kind.js';
import { UpstreamFailureError, type ChatResult, type ToolCall } from '../spec.js';
import { isRecord, readArray, readRecord, readString, type JsonRecord } from '../shared/json-fields.js';
import { mapBedrockStopReason, readBedrockStopSequence } from './stop-reason.js';
import { readBedrockUsage } from './usage.js';

/**
 * A Converse JSON body → canonical result. Converse reports neither a response id nor the model
 * that answered, so both are left empty for the gateway to fill in.
 */
export function parseBedrockResponse(body: unknown): ChatResult {
  if (!isRecord(body)) throw unexpectedShape('the response body is not a JSON object');
  const message = readRecord(readRecord(body, 'output') ?? {}, 'message');
  const content = message === undefined ? undefined : readArray(message, 'content');
  if (content === undefined) throw unexpectedShape('the response has no output.message.content array');

  const blocks = content.filter(isRecord);
  const stopReason = readString(body, 'stopReason');
  const usage = readRecord(body, 'usage');
  const reasoning = blocks.map(reasoningTextOf).join('');
  return {
    id: '',
    responseModel: '',
    text: blocks.map((block) => readString(block, 'text') ?? '').join(''),
    reasoning: reasoning === '' ? undefined : reasoning,
    toolCalls: blocks.flatMap(toToolCalls),
    finishReason: mapBedrockStopReason(stopReason),
    providerFinishReason: stopReason,
    stopSequence: readBedrockStopSequence(body),
    usage: usage === undefined ? undefined : readBedrockUsage(usage),
  };
}

/** `{"reasoningContent": {"reasoningText": {"text", "signature"}}}`; redacted reasoning has no text. */
function reasoningTextOf(block: JsonRecord): string {
  const reasoningText = readRecord(readRecord(block, 'reasoningContent') ?? {}, 'reasoningText');
  return reasoningText === undefined ? '' : (readString(reasoningText, 'text') ?? '');
}

function toToolCalls(block: JsonRecord): ToolCall[] {
  const toolUse = readRecord(block, 'toolUse');
  if (toolUse === undefined) return [];
  return [
    {
      id: readString(toolUse, 'toolUseId') ?? '',
      name: readString(toolUse, 'name') ?? '',
      arguments: JSON.stringify(toolUse.input ?? {}),
    },
  ];
}

function unexpectedShape(detail: string): UpstreamFailureError {
  return new UpstreamFailureError({
    kind: FailureKind.serverError,
    message: `Unexpected Converse response: ${detail}.`,
  });
}
