import { describe, expect, it } from 'vitest';
import { MAX_REPORTED_TOKENS, trustedUsage } from './trusted-usage.js';

const estimate = () => ({ inputTokens: 12, outputTokens: 34 });

describe('trustedUsage', () => {
  it('returns a sane report as it is', () => {
    const reported = { inputTokens: 1_000, outputTokens: 200, cacheReadTokens: 800, reasoningTokens: 50 };
    expect(trustedUsage(reported, estimate)).toBe(reported);
    const atTheBound = { inputTokens: MAX_REPORTED_TOKENS, outputTokens: 0 };
    expect(trustedUsage(atTheBound, estimate)).toBe(atTheBound);
  });

  it.each([
    ['absurd', 1e308],
    ['past the bound', MAX_REPORTED_TOKENS + 1],
    ['negative', -5],
    ['fractional', 2.5],
    ['infinite', Number.POSITIVE_INFINITY],
    ['not a number', Number.NaN],
  ])('replaces an %s count with the estimate and marks the usage estimated', (_what, count) => {
    expect(trustedUsage({ inputTokens: count, outputTokens: 7 }, estimate)).toEqual({ inputTokens: 12, outputTokens: 7, estimated: true });
    expect(trustedUsage({ inputTokens: 9, outputTokens: count }, estimate)).toEqual({ inputTokens: 9, outputTokens: 34, estimated: true });
  });

  it('drops a bad breakdown rather than estimating it, and keeps the good ones', () => {
    expect(trustedUsage({ inputTokens: 100, outputTokens: 5, cacheReadTokens: 1e308, cacheWriteTokens: 10, reasoningTokens: -1 }, estimate)).toEqual({
      inputTokens: 100,
      outputTokens: 5,
      cacheWriteTokens: 10,
      estimated: true,
    });
  });
});
