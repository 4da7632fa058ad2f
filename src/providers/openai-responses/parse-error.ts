import type { UpstreamFailure } from '../spec.js';
import { isRecord, readString, type JsonRecord } from '../shared/json-fields.js';
import { classifyOpenAiError, readEmbeddedError } from '../openai/parse-error.js';
import { retryDelayMsOf } from './retry-delay.js';

/**
 * The failure a Responses stream or body reports in-band, classified as the same code would be
 * over HTTP (`server_error`, `insufficient_quota`, `rate_limit_exceeded`, …): an `error` event
 * (OpenAI nests its fields under `error`; the documented form is flat) or a failed response's
 * `error`. Errors that came with an HTTP status are OpenAI's own and parsed as such.
 */
export function readInBandFailure(record: JsonRecord): UpstreamFailure {
  const nested = readEmbeddedError(record);
  const failure = classifyOpenAiError(nested ?? { message: readString(record, 'message') ?? 'the upstream failed the response', code: readString(record, 'code') });
  const retryAfterMs = failure.kind === 'rate_limit' ? retryDelayMsOf(failure.message) : undefined;
  return retryAfterMs === undefined ? failure : { ...failure, retryAfterMs };
}

/** A `failed` response's failure; undefined when the response did not fail. */
export function failureOfResponse(response: JsonRecord): UpstreamFailure | undefined {
  if (readString(response, 'status') !== 'failed') return undefined;
  return isRecord(response.error) ? readInBandFailure(response) : classifyOpenAiError({ message: 'the upstream failed the response' });
}
