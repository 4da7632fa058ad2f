import type { AttemptRecord } from '../core/attempt-record.js';
import { DEFAULT_COOLING_MS } from '../core/cooling-durations.js';
import { FAILURE_POLICY, type AttemptFailureKind, type FinalAnswer, type KindPolicy } from '../core/failure-policy.js';
import type { SkippedTarget } from '../core/skipped-target.js';

export interface FinalError {
  status: number;
  code: string;
  type: string;
  message: string;
  /** Set only when waiting would help (a transient failure, or a quota a provider said returns). */
  retryAfterMs?: number;
}

const THROTTLED_STATUS = FAILURE_POLICY.rate_limit.final.status;

/**
 * How long a caller is told to wait after a transient failure that is not a rate limit (5xx,
 * timeouts, connection failures): the default recovery-probe interval, by which the gateway has
 * tried an ejected deployment again. Rate limits say their own time (the earliest cooling end).
 */
export const TRANSIENT_RETRY_AFTER_MS = 2_000;

/** The words of each final answer; for a 400 they stand in only when the provider gave no reason. */
const WORDS: Readonly<Record<string, string>> = {
  content_policy_violation: 'refused by the provider',
  invalid_request: 'the request was rejected',
  context_length_exceeded: 'the input is longer than the model accepts',
  rate_limit_exceeded: 'every target of this route is rate limited',
  quota_exhausted: 'every target of this route is out of quota (a spend cap or billing limit): waiting will not help',
  upstream_timeout: 'every attempt timed out',
  internal_error: 'the gateway could not prepare any attempt of this request',
  upstream_error: 'every attempt failed',
};

/**
 * A failure that decides the final error: an attempt's, or the one a target skipped as out stands
 * for (`SkippedTarget.kind`).
 */
interface Failure {
  kind: AttemptFailureKind;
  retryAfterMs?: number;
  message?: string;
}

/**
 * The one answer for a request whose every attempt failed (docs/errors.md, the final error),
 * decided from the attempts and the targets passed over by the failure-policy table: the first row,
 * in table order, whose final rule holds gives the status and code; when none holds, 502
 * `upstream_error`. The message names each kind that occurred, and never one that did not.
 */
export function finalError(attempts: readonly AttemptRecord[], coolingEndsInMs?: number, skipped: readonly SkippedTarget[] = []): FinalError {
  const failures: Failure[] = [...attempts.flatMap((attempt) => (attempt.kind === 'ok' ? [] : [attempt as Failure])), ...skipped.flatMap(standsFor)];
  if (attempts.length === 0 && failures.length === 0) {
    // Every target cooling from earlier 429s counts as throttled too, though none was contacted now.
    if (coolingEndsInMs !== undefined) return answer(FAILURE_POLICY.rate_limit.final, { retryAfterMs: coolingEndsInMs, message: WORDS.rate_limit_exceeded! });
    return { ...answer(FAILURE_POLICY.timeout.final), message: 'the deadline passed before any attempt could start' };
  }
  const occurred = describe(attempts, skipped);
  for (const [kind, { final }] of Object.entries(FAILURE_POLICY) as [AttemptFailureKind, KindPolicy][]) {
    const deciding = failures.findLast((failure) => failure.kind === kind);
    if (deciding === undefined || !holds(final, failures)) continue;
    // A 400 is the caller's to fix: the provider's own reason says how.
    if (final.status === 400) return answer(final, { message: deciding.message ?? `${WORDS[final.code] ?? final.code} (${occurred})` });
    return answer(final, { message: `${WORDS[final.code] ?? final.code} (${occurred})`, ...retryAfter(kind, failures, coolingEndsInMs) });
  }
  const transient = failures.some((failure) => FAILURE_POLICY[failure.kind].transient);
  return {
    status: 502,
    code: 'upstream_error',
    type: 'upstream_error',
    message: `${WORDS.upstream_error} (${occurred})`,
    ...(transient ? { retryAfterMs: TRANSIENT_RETRY_AFTER_MS } : {}),
  };
}

/** A full connection says nothing about the target (all busy is a 503 of its own). */
function standsFor(skip: SkippedTarget): Failure[] {
  return skip.kind === undefined ? [] : [{ kind: skip.kind }];
}

function holds(final: FinalAnswer, failures: readonly Failure[]): boolean {
  switch (final.when) {
    case 'any':
      return true;
    case 'every':
      return failures.every((failure) => FAILURE_POLICY[failure.kind].final.status === final.status);
    case 'every_transient':
      return failures.filter((failure) => FAILURE_POLICY[failure.kind].transient).every((failure) => FAILURE_POLICY[failure.kind].final.status === final.status);
    case 'otherwise':
      return false;
  }
}

/** When asking again could help: a transient final kind always says when; a quota only when its provider did. */
function retryAfter(kind: AttemptFailureKind, failures: readonly Failure[], coolingEndsInMs: number | undefined): { retryAfterMs?: number } {
  if (kind === 'rate_limit') return { retryAfterMs: coolingEndsInMs ?? earliestRetryAfterMs(failures, kind) ?? DEFAULT_COOLING_MS };
  if (FAILURE_POLICY[kind].transient) return { retryAfterMs: TRANSIENT_RETRY_AFTER_MS };
  const providerSaid = earliestRetryAfterMs(failures, kind);
  return providerSaid === undefined ? {} : { retryAfterMs: providerSaid };
}

function earliestRetryAfterMs(failures: readonly Failure[], kind: AttemptFailureKind): number | undefined {
  const said = failures.filter((failure) => failure.kind === kind && failure.retryAfterMs !== undefined).map((failure) => failure.retryAfterMs!);
  return said.length === 0 ? undefined : Math.min(...said);
}

/** `attempts: server_error ×2, quota_exhausted; skipped: cooling (quota_exhausted)` — what happened, nothing more. */
function describe(attempts: readonly AttemptRecord[], skipped: readonly SkippedTarget[]): string {
  const parts: string[] = [];
  if (attempts.length > 0) parts.push(`attempts: ${tally(attempts.map((attempt) => attempt.kind))}`);
  if (skipped.length > 0) parts.push(`skipped: ${tally(skipped.map((skip) => (skip.cause === undefined ? skip.reason : `${skip.reason} (${skip.cause})`)))}`);
  return parts.join('; ');
}

function tally(names: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].map(([name, count]) => (count > 1 ? `${name} ×${count}` : name)).join(', ');
}

function answer(final: FinalAnswer, extra: { message?: string; retryAfterMs?: number } = {}): FinalError {
  return { status: final.status, code: final.code, type: final.type ?? typeOf(final.status), message: WORDS[final.code] ?? final.code, ...extra };
}

function typeOf(status: number): string {
  if (status === 400) return 'invalid_request_error';
  if (status === THROTTLED_STATUS) return 'rate_limit_error';
  if (status === 500) return 'server_error';
  return 'upstream_error';
}
