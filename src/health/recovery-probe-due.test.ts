import { describe, expect, it } from 'vitest';
import { recoveryProbeDueAtMs, type RecoveryProbeInput } from './recovery-probe-due.js';

const EJECTED_AT_MS = 10_000;

function dueAt(overrides: Partial<RecoveryProbeInput>): number | undefined {
  return recoveryProbeDueAtMs({ breaker: { state: 'ejected', sinceMs: EJECTED_AT_MS }, intervalMs: 2_000, lastProbeAtMs: undefined, coolingUntilMs: undefined, ...overrides });
}

describe('recoveryProbeDueAtMs: when an ejected deployment gets its next recovery probe', () => {
  it('is due one interval after the ejection, then one interval after each probe', () => {
    expect(dueAt({})).toBe(12_000);
    expect(dueAt({ lastProbeAtMs: 12_000 })).toBe(14_000);
    expect(dueAt({ lastProbeAtMs: 14_050 })).toBe(16_050);
  });

  it('counts from the ejection when it is newer than the last probe (a probe of an earlier ejection)', () => {
    expect(dueAt({ lastProbeAtMs: 3_000 })).toBe(12_000);
  });

  it('half-open (the ejection time is over): due at once, unless a probe went out less than an interval ago', () => {
    const halfOpen = { state: 'half_open' as const, sinceMs: 20_000 };
    expect(dueAt({ breaker: halfOpen })).toBe(20_000);
    expect(dueAt({ breaker: halfOpen, lastProbeAtMs: 19_500 })).toBe(21_500);
    expect(dueAt({ breaker: halfOpen, lastProbeAtMs: 15_000 })).toBe(17_000);
  });

  it('is not due while the provider asked to wait', () => {
    expect(dueAt({ coolingUntilMs: 30_000 })).toBe(30_000);
    expect(dueAt({ coolingUntilMs: 11_000 })).toBe(12_000);
  });

  it('is never due for a closed breaker, nor with recovery_probe_s: 0', () => {
    expect(dueAt({ breaker: { state: 'closed', sinceMs: EJECTED_AT_MS } })).toBeUndefined();
    expect(dueAt({ intervalMs: 0 })).toBeUndefined();
    expect(dueAt({ breaker: { state: 'half_open', sinceMs: 20_000 }, intervalMs: 0 })).toBeUndefined();
  });
});
