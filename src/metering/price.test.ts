import { describe, expect, it } from 'vitest';
import { costMicros, priceFor, type Price } from './price.js';

const sonnet = priceFor({ model: 'claude-sonnet-4-5-20250929' })!;

describe('priceFor', () => {
  it('takes the catalog price, cache rates included, for a known model', () => {
    expect(sonnet).toEqual({ inputPerMtok: 3, outputPerMtok: 15, cacheReadPerMtok: 0.3, cacheWritePerMtok: 3.75 });
    expect(priceFor({ model: 'gpt-4.1-mini' })).toEqual({ inputPerMtok: 0.4, outputPerMtok: 1.6, cacheReadPerMtok: 0.1 });
    // Gemini bills cached input at 10 % of the input price.
    expect(priceFor({ model: 'gemini-2.5-flash' })).toEqual({ inputPerMtok: 0.3, outputPerMtok: 2.5, cacheReadPerMtok: 0.03 });
  });

  it("prefers the target's own price, which replaces the catalog's entirely", () => {
    expect(priceFor({ model: 'claude-sonnet-4-5', price: { input_per_mtok: 2.4, output_per_mtok: 12 } })).toEqual({ inputPerMtok: 2.4, outputPerMtok: 12 });
    expect(priceFor({ model: 'llama-local', price: { input_per_mtok: 0, output_per_mtok: 0 } })).toEqual({ inputPerMtok: 0, outputPerMtok: 0 });
  });

  it("takes an override's own cache rates", () => {
    const price = { input_per_mtok: 2.4, output_per_mtok: 12, cache_read_per_mtok: 0.24, cache_write_per_mtok: 3 };
    expect(priceFor({ model: 'claude-sonnet-4-5', price })).toEqual({ inputPerMtok: 2.4, outputPerMtok: 12, cacheReadPerMtok: 0.24, cacheWritePerMtok: 3 });
  });

  it('knows no price for an unknown model', () => {
    expect(priceFor({ model: 'gpt-mock' })).toBeUndefined();
  });
});

describe('costMicros', () => {
  it('is exact for whole millions of tokens', () => {
    expect(costMicros({ inputTokens: 1_000_000, outputTokens: 0 }, { inputPerMtok: 3, outputPerMtok: 15 })).toBe(3_000_000);
    expect(costMicros({ inputTokens: 0, outputTokens: 1_000_000 }, { inputPerMtok: 3, outputPerMtok: 15 })).toBe(15_000_000);
  });

  it('prices input and output at their own rates', () => {
    // 10,000 × 3 = 30,000 and 5,000 × 15 = 75,000 micro-dollars.
    expect(costMicros({ inputTokens: 10_000, outputTokens: 5_000 }, sonnet)).toBe(105_000);
  });

  it('does not drift where float arithmetic would', () => {
    const price: Price = { inputPerMtok: 0.145, outputPerMtok: 0 };
    // Exactly 14.5 micro-dollars, which half-up makes 15; in floating point 100 × 0.145 is
    // 14.499999999999998 and would round to 14.
    expect(Math.round(100 * 0.145)).toBe(14);
    expect(costMicros({ inputTokens: 100, outputTokens: 0 }, price)).toBe(15);
  });

  it('rounds once, half up, on the total', () => {
    const price: Price = { inputPerMtok: 0.25, outputPerMtok: 0.25 };
    // 1 input + 1 output = 0.5 micro-dollars: rounding each would give 0, rounding the total gives 1.
    expect(costMicros({ inputTokens: 1, outputTokens: 1 }, price)).toBe(1);
    expect(costMicros({ inputTokens: 1, outputTokens: 0 }, price)).toBe(0);
    expect(costMicros({ inputTokens: 3, outputTokens: 0 }, { inputPerMtok: 0.5, outputPerMtok: 0 })).toBe(2);
  });

  it('bills cached reads and cache writes at their rates, out of the input count', () => {
    // 10,000 input of which 6,000 read from cache and 2,000 written to it; 1,000 output:
    // 2,000 × 3 + 6,000 × 0.3 + 2,000 × 3.75 + 1,000 × 15 = 6,000 + 1,800 + 7,500 + 15,000.
    expect(costMicros({ inputTokens: 10_000, outputTokens: 1_000, cacheReadTokens: 6_000, cacheWriteTokens: 2_000 }, sonnet)).toBe(30_300);
    // OpenAI: cached reads discounted, writes (no write rate) at the input price.
    const gpt41 = priceFor({ model: 'gpt-4.1' })!;
    // 8,000 × 2 + 2,000 × 0.5 = 17,000.
    expect(costMicros({ inputTokens: 10_000, outputTokens: 0, cacheReadTokens: 2_000, cacheWriteTokens: 8_000 }, gpt41)).toBe(17_000);
  });

  it('bills 1-hour cache writes at 2× input, 5-minute ones at 1.25×, as Anthropic does', () => {
    // 10,000 input: 2,000 written for 5 minutes, 3,000 for an hour, 5,000 uncached:
    // 5,000 × 3 + 2,000 × 3.75 + 3,000 × 6 = 15,000 + 7,500 + 18,000.
    const usage = { inputTokens: 10_000, outputTokens: 0, cacheWriteTokens: 5_000, cacheWrite1hTokens: 3_000 };
    expect(costMicros(usage, sonnet)).toBe(40_500);
    // Each Claude model in the table: a 1-hour write is exactly twice its input price.
    for (const model of ['claude-opus-4-1', 'claude-sonnet-4', 'claude-haiku-4-5', 'claude-3-5-haiku']) {
      const price = priceFor({ model })!;
      expect(costMicros({ inputTokens: 1_000_000, outputTokens: 0, cacheWriteTokens: 1_000_000, cacheWrite1hTokens: 1_000_000 }, price)).toBe(price.inputPerMtok * 2_000_000);
    }
    // More 1-hour writes than writes (a provider bug): no more than the writes are billed so.
    expect(costMicros({ ...usage, cacheWrite1hTokens: 9_000 }, sonnet)).toBe(15_000 + 5_000 * 6);
  });

  it('bills Gemini cached input at its rate', () => {
    // 1,000,000 prompt tokens of which 800,000 cached: 200,000 × 1.25 + 800,000 × 0.125.
    expect(costMicros({ inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 800_000 }, priceFor({ model: 'gemini-2.5-pro' })!)).toBe(350_000);
  });

  it('bills cached tokens at the input price when the price has no cache rate', () => {
    const override = priceFor({ model: 'claude-sonnet-4-5', price: { input_per_mtok: 3, output_per_mtok: 15 } })!;
    expect(costMicros({ inputTokens: 10_000, outputTokens: 0, cacheReadTokens: 6_000, cacheWriteTokens: 2_000 }, override)).toBe(30_000);
  });

  it('tolerates counts a provider got wrong instead of throwing', () => {
    // More cached than input: the uncached part is zero, the cached part is still billed.
    expect(costMicros({ inputTokens: 100, outputTokens: 0, cacheReadTokens: 1_000 }, sonnet)).toBe(300);
    expect(costMicros({ inputTokens: -5, outputTokens: Number.NaN }, sonnet)).toBe(0);
    expect(costMicros({ inputTokens: 10.4, outputTokens: 0 }, sonnet)).toBe(30);
  });

  it('stays exact at sizes past float precision', () => {
    // 10^12 tokens × $75/Mtok = 7.5 × 10^13 micro-dollars; the scaled product is 7.5 × 10^19.
    expect(costMicros({ inputTokens: 0, outputTokens: 1e12 }, { inputPerMtok: 15, outputPerMtok: 75 })).toBe(75_000_000_000_000);
  });
});
