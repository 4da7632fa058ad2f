import { describe, expect, it } from 'vitest';
import type { FailureKind } from '../core/failure-kind.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import type { AttemptFailureKind } from '../core/failure-policy.js';
import type { SkippedTarget } from '../core/skipped-target.js';
import { finalError, TRANSIENT_RETRY_AFTER_MS } from './final-error.js';

function attempt(kind: FailureKind, extra: Partial<AttemptRecord> = {}): AttemptRecord {
  return { n: 1, connection: 'c', provider: 'openai', model: 'm', kind, startedMs: 0, latencyMs: 1, committed: false, malformedEvents: 0, ...extra };
}

/** `kind`: the failure the skip stands for (planned-skips.ts reads it from health). */
function skip(reason: SkippedTarget['reason'], kind: AttemptFailureKind): SkippedTarget {
  return { connection: 'c2', model: 'm2', reason, kind };
}

describe('finalError', () => {
  it('a moderation stop is a 400 with the provider reason', () => {
    expect(finalError([attempt('server_error'), attempt('moderation', { message: 'flagged' })])).toMatchObject({
      status: 400,
      code: 'content_policy_violation',
      message: 'flagged',
    });
  });

  it('all invalid → 400 with the provider message', () => {
    expect(finalError([attempt('invalid_request', { message: 'bad a' }), attempt('invalid_request', { message: 'bad b' })])).toMatchObject({
      status: 400,
      code: 'invalid_request',
      message: 'bad b',
    });
  });

  it('context length nobody could take → 400 context_length_exceeded', () => {
    expect(finalError([attempt('context_length')])).toMatchObject({ status: 400, code: 'context_length_exceeded' });
  });

  it('rate limits and no other transient kind → 429 with the earliest retry-after (30 s when none was given), whatever structural kind stands beside them', () => {
    const throttled = finalError([attempt('rate_limit', { retryAfterMs: 5_000 }), attempt('quota_exhausted'), attempt('rate_limit', { retryAfterMs: 2_000 })]);
    expect(throttled).toMatchObject({ status: 429, code: 'rate_limit_exceeded', type: 'rate_limit_error', retryAfterMs: 2_000 });
    expect(throttled.message).toBe('every target of this route is rate limited (attempts: rate_limit ×2, quota_exhausted)');
    expect(finalError([attempt('rate_limit')]).retryAfterMs).toBe(30_000);
    expect(finalError([attempt('rate_limit', { retryAfterMs: 5_000 })], 1_200).retryAfterMs).toBe(1_200);
  });

  it('every target out of quota → 429 insufficient_quota without retry-after, unless a provider said when the quota returns', () => {
    const capped = finalError([attempt('quota_exhausted'), attempt('quota_exhausted')]);
    expect(capped).toMatchObject({ status: 429, code: 'quota_exhausted', type: 'insufficient_quota' });
    expect(capped.retryAfterMs).toBeUndefined();
    expect(capped.message).not.toContain('rate limit');
    expect(finalError([attempt('quota_exhausted', { retryAfterMs: 3_600_000 })]).retryAfterMs).toBe(3_600_000);
    // Passed over for their quota: the same answer, with nobody contacted or one last resort.
    expect(finalError([], 30_000, [skip('cooling', 'quota_exhausted'), skip('structural', 'quota_exhausted')])).toMatchObject({ status: 429, code: 'quota_exhausted' });
    expect(finalError([attempt('quota_exhausted')], undefined, [skip('structural', 'quota_exhausted')])).toMatchObject({ code: 'quota_exhausted' });
  });

  it('a quota beside a transient failure answers with the transient one: the 429 of a cooling target, the 502 of a server error', () => {
    expect(finalError([attempt('quota_exhausted')], 4_000, [skip('cooling', 'rate_limit')])).toMatchObject({ status: 429, code: 'rate_limit_exceeded', retryAfterMs: 4_000 });
    const failed = finalError([attempt('quota_exhausted'), attempt('server_error')]);
    expect(failed).toMatchObject({ status: 502, code: 'upstream_error', retryAfterMs: TRANSIENT_RETRY_AFTER_MS });
    expect(failed.message).toBe('every attempt failed (attempts: quota_exhausted, server_error)');
    expect(finalError([attempt('quota_exhausted')], undefined, [skip('ejected', 'server_error')])).toMatchObject({ status: 502, retryAfterMs: TRANSIENT_RETRY_AFTER_MS });
  });

  it('timeouts and no other transient kind → 504; a mix of transient kinds → 502; both say when to ask again', () => {
    expect(finalError([attempt('timeout'), attempt('timeout')])).toMatchObject({ status: 504, code: 'upstream_timeout', retryAfterMs: TRANSIENT_RETRY_AFTER_MS });
    expect(finalError([attempt('timeout'), attempt('credential')])).toMatchObject({ status: 504 });
    expect(finalError([attempt('timeout'), attempt('server_error')])).toMatchObject({ status: 502, code: 'upstream_error', retryAfterMs: TRANSIENT_RETRY_AFTER_MS });
    expect(finalError([attempt('rate_limit'), attempt('server_error')])).toMatchObject({ status: 502, retryAfterMs: TRANSIENT_RETRY_AFTER_MS });
  });

  it('failures waiting cannot help carry no retry-after: a rejected key, a retired model, an empty answer', () => {
    const final = finalError([attempt('credential'), attempt('not_found'), attempt('empty_answer')]);
    expect(final).toMatchObject({ status: 502, code: 'upstream_error' });
    expect(final.retryAfterMs).toBeUndefined();
    expect(final.message).toBe('every attempt failed (attempts: credential, not_found, empty_answer)');
  });

  it('every attempt failing inside the gateway → 500 internal_error; beside a provider failure → 502', () => {
    expect(finalError([attempt('internal_error'), attempt('internal_error')])).toMatchObject({ status: 500, code: 'internal_error' });
    expect(finalError([attempt('internal_error'), attempt('server_error')])).toMatchObject({ status: 502, code: 'upstream_error' });
  });

  it('with no attempt: every target cooling is a 429 until the first cools; else the deadline passed', () => {
    expect(finalError([], 7_000)).toMatchObject({ status: 429, code: 'rate_limit_exceeded', retryAfterMs: 7_000 });
    expect(finalError([])).toMatchObject({ status: 504, message: 'the deadline passed before any attempt could start' });
  });
});
