import { FailureKind } from '../../core/failure-kind.js';
import { UpstreamFailureError, type ChatResult, type ToolCall } from '../spec.js';
import { isRecord, readArray, readNumber, readRecord, readString, type JsonRecord } from '../shared/json-fields.js';
import { classifyOpenAiError, readEmbeddedError } from './parse-error.js';
import { mapOpenAiFinishReason } from './finish-reason.js';
import { readOpenAiUsage } from './usage.js';

/** A Chat Completions JSON body → canonical result; throws `UpstreamFailureError` for error bodies. */
export function parseOpenAiResponse(body: unknown): ChatResult {
  if (!isRecord(body)) throw unexpectedShape('the response body is not a JSON object');
  // Some compatible hosts answer 200 with an error body.
  const embeddedError = readEmbeddedError(body);
  if (embeddedError !== undefined) throw new UpstreamFailureError(classifyOpenAiError(embeddedError));

  const choice = readArray(body, 'choices')?.[0];
  const message = isRecord(choice) ? readRecord(choice, 'message') : undefined;
  if (!isRecord(choice) || message === undefined) throw unexpectedShape('the response has no choices[0].message');

  const providerFinishReason = readString(choice, 'finish_reason');
  const usage = readRecord(body, 'usage');
  return {
    id: readString(body, 'id') ?? '',
    responseModel: readString(body, 'model') ?? '',
    created: readNumber(body, 'created'),
    text: readText(message.content),
    reasoning: readString(message, 'reasoning_content') ?? readString(message, 'reasoning'),
    refusal: readString(message, 'refusal'),
    toolCalls: (readArray(message, 'tool_calls') ?? []).filter(isRecord).map(readToolCall),
    finishReason: mapOpenAiFinishReason(providerFinishReason),
    providerFinishReason,
    usage: usage === undefined ? undefined : readOpenAiUsage(usage),
    systemFingerprint: readString(body, 'system_fingerprint'),
  };
}

/** `content` is a string or null on OpenAI; some compatible hosts send an array of text parts. */
function readText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isRecord)
    .map((part) => readString(part, 'text') ?? '')
    .join('');
}

function readToolCall(call: JsonRecord): ToolCall {
  const fn = readRecord(call, 'function') ?? {};
  const args = fn.arguments;
  return {
    id: readString(call, 'id') ?? '',
    name: readString(fn, 'name') ?? '',
    // A few hosts send the arguments as an object instead of JSON text.
    arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
  };
}

function unexpectedShape(detail: string): UpstreamFailureError {
  return new UpstreamFailureError({
    kind: FailureKind.serverError,
    message: `Unexpected Chat Completions response: ${detail}.`,
  });
}
