import { DEFAULT_COOLING_MS } from '../core/cooling-durations.js';
import type { AttemptRecord } from '../core/attempt-record.js';

export interface FinalError {
  status: number;
  code: string;
  type: string;
  message: string;
  /** Set only when waiting would help (a rate limit or quota cooling down). */
  retryAfterMs?: number;
}


/**
 * The one answer for a request whose every attempt failed (docs/errors.md, the final error), decided from
 * the attempts alone, in the order the spec lists the cases.
 */
export function finalError(attempts: readonly AttemptRecord[], coolingEndsInMs?: number): FinalError {
  const last = (kind: string) => [...attempts].reverse().find((attempt) => attempt.kind === kind);
  const moderation = last('moderation');
  if (moderation) {
    return { status: 400, code: 'content_policy_violation', type: 'invalid_request_error', message: moderation.message ?? 'refused by the provider' };
  }
  if (attempts.length > 0 && attempts.every((attempt) => attempt.kind === 'invalid_request')) {
    return { status: 400, code: 'invalid_request', type: 'invalid_request_error', message: attempts.at(-1)!.message ?? 'the request was rejected' };
  }
  const contextLength = last('context_length');
  if (contextLength && attempts.every((attempt) => attempt.kind === 'context_length' || attempt.kind === 'invalid_request')) {
    return { status: 400, code: 'context_length_exceeded', type: 'invalid_request_error', message: contextLength.message ?? 'the input is longer than the model accepts' };
  }
  const throttled = attempts.filter((attempt) => attempt.kind === 'rate_limit' || attempt.kind === 'quota_exhausted');
  // Every target cooling from earlier 429s counts as throttled too, though none was contacted now.
  if (throttled.length > 0 || (attempts.length === 0 && coolingEndsInMs !== undefined)) {
    const retryAfterMs =
      coolingEndsInMs ?? Math.min(...throttled.map((attempt) => attempt.retryAfterMs ?? DEFAULT_COOLING_MS));
    return { status: 429, code: 'rate_limit_exceeded', type: 'rate_limit_error', message: 'every target of this route is rate limited or out of quota', retryAfterMs };
  }
  if (attempts.length > 0 && attempts.every((attempt) => attempt.kind === 'timeout')) {
    return { status: 504, code: 'upstream_timeout', type: 'upstream_error', message: 'every attempt timed out' };
  }
  if (attempts.length > 0 && attempts.every((attempt) => attempt.kind === 'internal_error')) {
    return { status: 500, code: 'internal_error', type: 'server_error', message: 'the gateway could not prepare any attempt of this request' };
  }
  if (attempts.length === 0) {
    return { status: 504, code: 'upstream_timeout', type: 'upstream_error', message: 'the deadline passed before any attempt could start' };
  }
  return { status: 502, code: 'upstream_error', type: 'upstream_error', message: `every attempt failed; last: ${attempts.at(-1)!.kind}` };
}
