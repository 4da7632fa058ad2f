import { FailureKind } from '../../core/failure-kind.js';
import { UpstreamFailureError, type ChatResult, type ToolCall } from '../spec.js';
import { isRecord, readRecord, readString } from '../shared/json-fields.js';
import { mapGeminiFinishReason } from './finish-reason.js';
import { classifyGeminiError, readGeminiErrorDetails } from './parse-error.js';
import { promptBlockedError } from './prompt-feedback.js';
import { firstCandidate, readParts } from './read-parts.js';
import { toolCallIdOf } from './tool-call-id.js';
import { readGeminiUsage } from './usage.js';

/** A generateContent JSON body → canonical result; throws `UpstreamFailureError` for error bodies and blocked prompts. */
export function parseGeminiResponse(body: unknown): ChatResult {
  const embeddedError = readGeminiErrorDetails(body);
  if (embeddedError !== undefined) throw new UpstreamFailureError(classifyGeminiError(embeddedError));
  if (!isRecord(body)) throw unexpectedShape('the response body is not a JSON object');

  const candidate = firstCandidate(body);
  if (candidate === undefined) {
    const blocked = promptBlockedError(body);
    throw blocked === undefined ? unexpectedShape('the response has no candidates') : new UpstreamFailureError(blocked);
  }

  const responseId = readString(body, 'responseId');
  let text = '';
  let reasoning = '';
  const toolCalls: ToolCall[] = [];
  for (const part of readParts(candidate)) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'reasoning') reasoning += part.text;
    else {
      const id = toolCallIdOf({ index: toolCalls.length, responseId, ...part.reference });
      toolCalls.push({ id, name: part.name, arguments: part.arguments });
    }
  }
  const providerFinishReason = readString(candidate, 'finishReason');
  const usage = readRecord(body, 'usageMetadata');
  return {
    id: responseId ?? '',
    responseModel: readString(body, 'modelVersion') ?? '',
    text,
    reasoning: reasoning === '' ? undefined : reasoning,
    toolCalls,
    finishReason: mapGeminiFinishReason(providerFinishReason, toolCalls.length > 0),
    providerFinishReason,
    usage: usage === undefined ? undefined : readGeminiUsage(usage),
  };
}

function unexpectedShape(detail: string): UpstreamFailureError {
  return new UpstreamFailureError({
    kind: FailureKind.serverError,
    message: `Unexpected generateContent response: ${detail}.`,
  });
}
