import { FailureKind } from '../../core/failure-kind.js';
import { UpstreamFailureError, type ChatResult, type ToolCall } from '../spec.js';
import { isRecord, readArray, readNumber, readRecord, readString, type JsonRecord } from '../shared/json-fields.js';
import { classifyOpenAiError, readEmbeddedError } from '../openai/parse-error.js';
import { responsesFinish } from './finish-reason.js';
import { failureOfResponse } from './parse-error.js';
import { isPassedThroughItem } from './passed-through-item.js';
import { calledToolName } from './tool-name.js';
import { readResponsesUsage } from './usage.js';

/** A Responses object → canonical result; throws `UpstreamFailureError` for an error or a failed response. */
export function parseOpenAiResponsesResponse(body: unknown): ChatResult {
  if (!isRecord(body)) throw unexpectedShape('the response body is not a JSON object');
  const embeddedError = readEmbeddedError(body);
  if (embeddedError !== undefined && readString(body, 'object') !== 'response') throw new UpstreamFailureError(classifyOpenAiError(embeddedError));
  const failure = failureOfResponse(body);
  if (failure !== undefined) throw new UpstreamFailureError(failure);
  const output = readArray(body, 'output');
  if (output === undefined) throw unexpectedShape('the response has no output');

  let text = '';
  let refusal: string | undefined;
  const reasoning: string[] = [];
  const toolCalls: ToolCall[] = [];
  const outputItems: JsonRecord[] = [];
  for (const item of output.filter(isRecord)) {
    const type = readString(item, 'type');
    if (type === 'message') {
      for (const part of (readArray(item, 'content') ?? []).filter(isRecord)) {
        if (readString(part, 'type') === 'output_text') text += readString(part, 'text') ?? '';
        else if (readString(part, 'type') === 'refusal') refusal = (refusal ?? '') + (readString(part, 'refusal') ?? '');
      }
    } else if (type === 'function_call') {
      toolCalls.push({ id: readString(item, 'call_id') ?? '', name: calledToolName(item), arguments: readString(item, 'arguments') ?? '' });
    } else if (type === 'reasoning') {
      for (const part of (readArray(item, 'summary') ?? []).filter(isRecord)) reasoning.push(readString(part, 'text') ?? '');
    }
    if (isPassedThroughItem(item)) outputItems.push(item);
  }

  const { reason, providerReason } = responsesFinish(body, toolCalls.length > 0);
  const usage = readRecord(body, 'usage');
  return {
    id: readString(body, 'id') ?? '',
    responseModel: readString(body, 'model') ?? '',
    created: readNumber(body, 'created_at'),
    text,
    ...(reasoning.length > 0 ? { reasoning: reasoning.join('\n\n') } : {}),
    ...(refusal === undefined ? {} : { refusal }),
    toolCalls,
    finishReason: reason,
    providerFinishReason: providerReason,
    usage: usage === undefined ? undefined : readResponsesUsage(usage),
    ...(outputItems.length > 0 ? { outputItems } : {}),
  };
}

function unexpectedShape(detail: string): UpstreamFailureError {
  return new UpstreamFailureError({ kind: FailureKind.serverError, message: `Unexpected Responses API response: ${detail}.` });
}
