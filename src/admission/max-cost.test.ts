import { describe, expect, it } from 'vitest';
import { maxCostMicros } from './max-cost.js';

describe('maxCostMicros', () => {
  it('prices input and capped output at the dearest target', () => {
    const cheap = { inputPerMtok: 0.15, outputPerMtok: 0.6 };
    const dear = { inputPerMtok: 2.5, outputPerMtok: 10 };
    // 1,000 × 2.5 + 4,096 × 10 micro-dollars.
    expect(maxCostMicros(1_000, 4_096, [cheap, dear, undefined])).toBe(43_460);
  });

  it('is 0 when no price is known', () => {
    expect(maxCostMicros(1_000, 4_096, [undefined])).toBe(0);
  });

  it('ignores cache rates: the reservation assumes nothing is cached', () => {
    expect(maxCostMicros(1_000, 0, [{ inputPerMtok: 3, outputPerMtok: 15, cacheReadPerMtok: 0.3 }])).toBe(3_000);
  });
});
