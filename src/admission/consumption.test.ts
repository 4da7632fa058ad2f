import { describe, expect, it } from 'vitest';
import { consumptionOf } from './consumption.js';

describe('consumptionOf', () => {
  it('sums tokens and cost over every charge, unpriced ones counting tokens only', () => {
    const charges = [
      { inputTokens: 1_000, outputTokens: 200, costMicros: 3_600 },
      { inputTokens: 1_000, outputTokens: 300, costMicros: 0 },
    ];
    expect(consumptionOf(charges)).toEqual({ tokens: 2_500, costMicros: 3_600 });
  });

  it('is zero for a request that never reached a provider', () => {
    expect(consumptionOf([])).toEqual({ tokens: 0, costMicros: 0 });
  });
});
