import { describe, expect, it } from 'vitest';
import { FailureKind } from './failure-kind.js';
import { FAILURE_POLICY, ruleFor } from './failure-policy.js';

describe('the failure policy table', () => {
  it('covers every kind but ok, with the default rules of docs/errors.md', () => {
    const kinds = Object.values(FailureKind).filter((kind) => kind !== 'ok');
    expect(Object.keys(FAILURE_POLICY).sort()).toEqual([...kinds].sort());
    expect(Object.fromEntries(Object.entries(FAILURE_POLICY).map(([kind, policy]) => [kind, policy.rule]))).toEqual({
      rate_limit: 'failover',
      quota_exhausted: 'failover',
      server_error: 'retry',
      timeout: 'failover',
      connection: 'retry',
      credential: 'failover',
      not_found: 'failover',
      context_length: 'failover',
      moderation: 'stop',
      invalid_request: 'failover',
      stream_interrupted: 'stop',
      cancelled: 'stop',
      internal_error: 'failover',
    });
  });

  it('only server errors, timeouts, connection failures and broken streams count toward ejection', () => {
    const counting = Object.entries(FAILURE_POLICY).filter(([, policy]) => policy.countsTowardEjection).map(([kind]) => kind);
    expect(counting.sort()).toEqual(['connection', 'server_error', 'stream_interrupted', 'timeout']);
  });

  it('timeouts and the gateway\'s own failures are never retried on the same target', () => {
    const neverRetried = Object.entries(FAILURE_POLICY).filter(([, policy]) => !policy.sameTargetRetry).map(([kind]) => kind);
    expect(neverRetried.sort()).toEqual(['internal_error', 'timeout']);
  });

  it('a route override wins', () => {
    expect(ruleFor('rate_limit', { on: {} })).toBe('failover');
    expect(ruleFor('rate_limit', { on: { rate_limit: 'stop' } })).toBe('stop');
  });
});
