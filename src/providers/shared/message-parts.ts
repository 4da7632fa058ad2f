import { FailureKind } from '../../core/failure-kind.js';
import { UpstreamFailureError, type ToolCall } from '../spec.js';
import { isRecord, type JsonRecord } from './json-fields.js';
import { parseJson } from './parse-json.js';

const BASE64_DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/**
 * The media type and base64 payload of a `data:` URL, for providers that take images inline.
 * A data URL that is not base64 cannot be sent to them: the attempt fails as invalid_request
 * (another target may accept it).
 */
export function base64DataUrl(url: string, provider: string): { mediaType: string; data: string } {
  const match = BASE64_DATA_URL.exec(url);
  if (match === null) {
    throw new UpstreamFailureError({
      kind: FailureKind.invalidRequest,
      message: `An image data URL is not base64-encoded; ${provider} accepts base64 image data only.`,
    });
  }
  return { mediaType: match[1]!, data: match[2]! };
}

/**
 * A tool call's arguments as the JSON object that Anthropic, Gemini and Bedrock require, while
 * canonical arguments are the model's raw text. Empty text means "no arguments"; anything else
 * that is not an object cannot be sent faithfully, so the attempt fails as invalid_request
 * (another target may accept it) rather than sending a guessed `{}` that would misstate what the
 * model called.
 */
export function toolArgumentsObject(call: ToolCall, provider: string): JsonRecord {
  if (call.arguments.trim() === '') return {};
  const parsed = parseJson(call.arguments);
  if (parsed.ok && isRecord(parsed.value)) return parsed.value;
  throw new UpstreamFailureError({
    kind: FailureKind.invalidRequest,
    message: `Tool call ${call.id} (${call.name}) has arguments that are not a JSON object; ${provider} requires an object.`,
  });
}
