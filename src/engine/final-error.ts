import type { AttemptRecord } from '../core/attempt-record.js';
import { DEFAULT_COOLING_MS } from '../core/cooling-durations.js';
import { FAILURE_POLICY, type AttemptFailureKind, type FinalAnswer, type KindPolicy } from '../core/failure-policy.js';

export interface FinalError {
  status: number;
  code: string;
  type: string;
  message: string;
  /** Set only when waiting would help (a rate limit or quota cooling down). */
  retryAfterMs?: number;
}

const THROTTLED_STATUS = FAILURE_POLICY.rate_limit.final.status;

/** The words of each final answer; for a 400 they stand in only when the provider gave no reason. */
const WORDS: Readonly<Record<string, string>> = {
  content_policy_violation: 'refused by the provider',
  invalid_request: 'the request was rejected',
  context_length_exceeded: 'the input is longer than the model accepts',
  rate_limit_exceeded: 'every target of this route is rate limited or out of quota',
  upstream_timeout: 'every attempt timed out',
  internal_error: 'the gateway could not prepare any attempt of this request',
};

/**
 * The one answer for a request whose every attempt failed (docs/errors.md, the final error),
 * decided from the attempts alone by the failure-policy table: the first row, in table order,
 * whose final rule holds gives the status and code; when none holds, 502 `upstream_error`.
 */
export function finalError(attempts: readonly AttemptRecord[], coolingEndsInMs?: number): FinalError {
  if (attempts.length === 0) {
    // Every target cooling from earlier 429s counts as throttled too, though none was contacted now.
    if (coolingEndsInMs !== undefined) return answer(FAILURE_POLICY.rate_limit.final, { retryAfterMs: coolingEndsInMs });
    return { ...answer(FAILURE_POLICY.timeout.final), message: 'the deadline passed before any attempt could start' };
  }
  for (const [kind, { final }] of Object.entries(FAILURE_POLICY) as [AttemptFailureKind, KindPolicy][]) {
    const deciding = attempts.findLast((attempt) => attempt.kind === kind);
    if (deciding === undefined || !holds(final, attempts)) continue;
    if (final.status === THROTTLED_STATUS) return answer(final, { retryAfterMs: coolingEndsInMs ?? earliestRetryAfterMs(attempts, final.status) });
    // A 400 is the caller's to fix: the provider's own reason says how.
    return answer(final, final.status === 400 && deciding.message !== undefined ? { message: deciding.message } : {});
  }
  return { status: 502, code: 'upstream_error', type: 'upstream_error', message: `every attempt failed; last: ${attempts.at(-1)!.kind}` };
}

function holds(final: FinalAnswer, attempts: readonly AttemptRecord[]): boolean {
  switch (final.when) {
    case 'any':
      return true;
    case 'every':
      return attempts.every((attempt) => finalStatusOf(attempt) === final.status);
    case 'otherwise':
      return false;
  }
}

function earliestRetryAfterMs(attempts: readonly AttemptRecord[], status: number): number {
  return Math.min(...attempts.filter((attempt) => finalStatusOf(attempt) === status).map((attempt) => attempt.retryAfterMs ?? DEFAULT_COOLING_MS));
}

function finalStatusOf(attempt: AttemptRecord): number | undefined {
  return attempt.kind === 'ok' ? undefined : FAILURE_POLICY[attempt.kind].final.status;
}

function answer(final: FinalAnswer, extra: { message?: string; retryAfterMs?: number } = {}): FinalError {
  return { status: final.status, code: final.code, type: typeOf(final.status), message: WORDS[final.code] ?? final.code, ...extra };
}

function typeOf(status: number): string {
  if (status === 400) return 'invalid_request_error';
  if (status === THROTTLED_STATUS) return 'rate_limit_error';
  if (status === 500) return 'server_error';
  return 'upstream_error';
}
