import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from './backoff.js';

const backoff = { base_ms: 200, max_ms: 2_000, jitter: 'full' as const };

describe('backoffDelayMs', () => {
  it('doubles the cap per retry up to max_ms', () => {
    const top = () => 0.999_999;
    expect([0, 1, 2, 3, 4, 5].map((retry) => backoffDelayMs(retry, backoff, top))).toEqual([199, 399, 799, 1599, 1999, 1999]);
  });

  it('full jitter spreads the delay over [0, cap]', () => {
    expect(backoffDelayMs(2, backoff, () => 0)).toBe(0);
    expect(backoffDelayMs(2, backoff, () => 0.5)).toBe(400);
  });

  it('without jitter waits the cap exactly', () => {
    expect(backoffDelayMs(1, { ...backoff, jitter: 'none' })).toBe(400);
  });
});
