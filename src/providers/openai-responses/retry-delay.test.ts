import { describe, expect, it } from 'vitest';
import { retryDelayMsOf } from './retry-delay.js';

describe('retryDelayMsOf', () => {
  it.each([
    ['Rate limit reached for gpt-5.1 on tokens per min (TPM). Please try again in 11.054s. Visit …', 11_054],
    ['Please try again in 28ms.', 28],
    ['Please try again in 7m12s. Visit …', 432_000],
    ['Please try again in 1h0m0s.', 3_600_000],
  ])('%s → %d ms', (message, expected) => {
    expect(retryDelayMsOf(message)).toBe(expected);
  });

  it('a message without a delay has none', () => {
    expect(retryDelayMsOf('You exceeded your current quota.')).toBeUndefined();
    expect(retryDelayMsOf('Please try again in a moment.')).toBeUndefined();
  });
});
