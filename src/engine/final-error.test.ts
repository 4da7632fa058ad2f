import { describe, expect, it } from 'vitest';
import type { FailureKind } from '../core/failure-kind.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import { finalError } from './final-error.js';

function attempt(kind: FailureKind, extra: Partial<AttemptRecord> = {}): AttemptRecord {
  return { n: 1, connection: 'c', provider: 'openai', model: 'm', kind, startedMs: 0, latencyMs: 1, committed: false, malformedEvents: 0, ...extra };
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

  it('any throttling → 429 with the earliest retry-after, default 30 s when none was given', () => {
    expect(finalError([attempt('rate_limit', { retryAfterMs: 5_000 }), attempt('server_error'), attempt('quota_exhausted', { retryAfterMs: 2_000 })])).toMatchObject({
      status: 429,
      retryAfterMs: 2_000,
    });
    expect(finalError([attempt('rate_limit')]).retryAfterMs).toBe(30_000);
  });

  it('all timeouts → 504; a mix → 502 without retry-after', () => {
    expect(finalError([attempt('timeout'), attempt('timeout')])).toMatchObject({ status: 504, code: 'upstream_timeout' });
    const mixed = finalError([attempt('timeout'), attempt('server_error')]);
    expect(mixed).toMatchObject({ status: 502, code: 'upstream_error' });
    expect(mixed.retryAfterMs).toBeUndefined();
  });

  it('every attempt failing inside the gateway → 500 internal_error; beside a provider failure → 502', () => {
    expect(finalError([attempt('internal_error'), attempt('internal_error')])).toMatchObject({ status: 500, code: 'internal_error' });
    expect(finalError([attempt('internal_error'), attempt('server_error')])).toMatchObject({ status: 502, code: 'upstream_error' });
  });
});
