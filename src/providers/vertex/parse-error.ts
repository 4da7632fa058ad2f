import { parseAnthropicError } from '../anthropic/parse-error.js';
import { classifyGeminiError, readGeminiErrorDetails, type GeminiErrorDetails } from '../gemini/parse-error.js';
import { describeBody } from '../shared/body-excerpt.js';
import { isRecord, readRecord, readString } from '../shared/json-fields.js';
import { parseJson } from '../shared/parse-json.js';
import { parseRetryAfterMs } from '../shared/retry-after.js';
import type { ResponseHeaders, UpstreamFailure } from '../spec.js';

/** Vertex names the exhausted quota in its message when it sends no QuotaFailure: `Quota exceeded for aiplatform.googleapis.com/…`. */
const QUOTA_IN_MESSAGE = /quota exceeded for (?:quota metric ')?([\w./-]+)/i;

/**
 * An error answer from Vertex, either publisher. Vertex itself answers in google.rpc form
 * (authentication, quotas, a model not served in the region); the Claude publisher's own errors
 * come as Anthropic error bodies, passed through, and are read as on Anthropic's API.
 */
export function parseVertexError(status: number, headers: ResponseHeaders, body: string, nowMs: number): UpstreamFailure {
  const parsed = parseJson(body);
  if (parsed.ok && isAnthropicErrorBody(parsed.value)) return parseAnthropicError(status, headers, body, nowMs);
  const details: GeminiErrorDetails = (parsed.ok ? readGeminiErrorDetails(parsed.value) : undefined) ?? {
    message: describeBody(status, body),
    quotaIds: [],
  };
  const quotaInMessage = QUOTA_IN_MESSAGE.exec(details.message)?.[1];
  const named = quotaInMessage === undefined ? details : { ...details, quotaIds: [...details.quotaIds, quotaInMessage] };
  return classifyGeminiError(named, { status, retryAfterMs: parseRetryAfterMs(headers, nowMs) });
}

/** `{"type":"error","error":{"type":"overloaded_error",…}}`: google.rpc errors carry `status` and `code` instead. */
function isAnthropicErrorBody(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const error = readRecord(value, 'error');
  return error !== undefined && readString(error, 'type') !== undefined;
}
