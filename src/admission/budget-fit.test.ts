import { describe, expect, it } from 'vitest';
import { costMicros } from '../metering/price.js';
import { MIN_FITTED_OUTPUT_TOKENS, outputTokensWithin, reservationRange } from './budget-fit.js';

const sonnet = { inputPerMtok: 3, outputPerMtok: 15 };
const mini = { inputPerMtok: 0.15, outputPerMtok: 0.6 };

describe('reservationRange', () => {
  it('a lowerable request may go down to its input and 256 output tokens at the dearest price', () => {
    expect(reservationRange(1_000, 64_000, [mini, sonnet], true)).toEqual({
      maxCostMicros: 3_000 + 64_000 * 15,
      minCostMicros: 3_000 + MIN_FITTED_OUTPUT_TOKENS * 15,
      minOutputTokens: 256,
    });
  });

  it('one that may not be lowered, or whose cap is already below the floor, is all or nothing', () => {
    expect(reservationRange(1_000, 64_000, [sonnet], false)).toMatchObject({ minCostMicros: 963_000, minOutputTokens: 64_000 });
    expect(reservationRange(1_000, 100, [sonnet], true)).toEqual({ maxCostMicros: 4_500, minCostMicros: 4_500, minOutputTokens: 100 });
  });
});

describe('outputTokensWithin', () => {
  it('is what the reservation pays for beside the input: $0.05 at $3 / $15 per million after 10 input tokens', () => {
    // (50,000 − 30) / 15 = 3,331.3
    expect(outputTokensWithin(50_000, 10, [sonnet])).toBe(3_331);
  });

  it('holds at every price the request may be served at, so the dearest decides', () => {
    const dearInput = { inputPerMtok: 100, outputPerMtok: 1 };
    // Sonnet allows 3,331; the dear-input price leaves 50,000 − 1,000 for 49,000 tokens.
    expect(outputTokensWithin(50_000, 10, [dearInput, sonnet, undefined])).toBe(3_331);
    // With 490 input tokens the dear input price leaves 1,000 micro-dollars: 1,000 tokens, fewer than Sonnet's 3,235.
    expect(outputTokensWithin(50_000, 490, [dearInput, sonnet])).toBe(1_000);
    expect(outputTokensWithin(50_000, 501, [dearInput, sonnet])).toBe(0);
  });

  it('never costs a micro-dollar more than reserved, whatever the rounding', () => {
    const odd = { inputPerMtok: 0.37, outputPerMtok: 1.73 };
    for (const reserved of [1, 999, 12_345, 987_654]) {
      for (const input of [0, 7, 1_234]) {
        const tokens = outputTokensWithin(reserved, input, [odd]);
        const usage = (outputTokens: number) => costMicros({ inputTokens: input, outputTokens }, odd);
        if (tokens > 0) expect(usage(tokens)).toBeLessThanOrEqual(reserved);
        expect(usage(tokens + 1)).toBeGreaterThan(reserved);
      }
    }
  });

  it('is unbounded where no known price charges for output', () => {
    expect(outputTokensWithin(10, 10, [undefined])).toBe(Number.POSITIVE_INFINITY);
    expect(outputTokensWithin(10, 10, [{ inputPerMtok: 1, outputPerMtok: 0 }])).toBe(Number.POSITIVE_INFINITY);
    expect(outputTokensWithin(10, 10, [{ inputPerMtok: 1, outputPerMtok: 1e-9 }])).toBe(Number.POSITIVE_INFINITY);
  });
});
