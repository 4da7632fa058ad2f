import { describe, expect, it } from 'vitest';
import { FirstTokenSamples, NO_FIRST_TOKENS, type RecentFirstTokens } from './first-token-samples.js';
import { firstTokenTimeoutMs, type FirstTokenAttempt } from './first-token-timeout.js';

const AUTO = { first_token_ms: 'auto' as const, first_token_min_ms: 1_000, first_token_max_ms: 30_000 };

/** `count` samples: all `typicalMs` but the slowest, at `slowMs`, each of `inputTokens`. */
function recentOf(count: number, options: { typicalMs: number; slowMs?: number; inputTokens?: number }): RecentFirstTokens {
  const samples = new FirstTokenSamples();
  for (let index = 0; index < count; index++) {
    const firstTokenMs = index === 0 && options.slowMs !== undefined ? options.slowMs : options.typicalMs;
    samples.observe({ firstTokenMs, inputTokens: options.inputTokens ?? 1_000 }, 0);
  }
  return samples.recent(0);
}

/** A streamed attempt of `inputTokens` with another target after it. */
const streamed = (inputTokens: number): FirstTokenAttempt => ({ streamedInputTokens: inputTokens, lastOption: false });

describe('firstTokenTimeoutMs', () => {
  it('uses a number as written, whatever the samples', () => {
    expect(firstTokenTimeoutMs({ ...AUTO, first_token_ms: 15_000 }, recentOf(50, { typicalMs: 100 }), streamed(1_000))).toBe(15_000);
    expect(firstTokenTimeoutMs({ ...AUTO, first_token_ms: 15_000 }, NO_FIRST_TOKENS, { streamedInputTokens: undefined, lastOption: true })).toBe(15_000);
  });

  it('is twice the p99 for a request of typical size', () => {
    // 50 samples: p99 is the slowest (rank 50), 2 400 ms → 4 800 ms.
    expect(firstTokenTimeoutMs(AUTO, recentOf(50, { typicalMs: 800, slowMs: 2_400 }), streamed(1_000))).toBe(4_800);
  });

  it('is the maximum until 20 samples exist', () => {
    expect(firstTokenTimeoutMs(AUTO, NO_FIRST_TOKENS, streamed(1_000))).toBe(30_000);
    expect(firstTokenTimeoutMs(AUTO, recentOf(19, { typicalMs: 800 }), streamed(1_000))).toBe(30_000);
    expect(firstTokenTimeoutMs(AUTO, recentOf(20, { typicalMs: 800 }), streamed(1_000))).toBe(1_600);
  });

  it('is the maximum for an answer that comes whole', () => {
    expect(firstTokenTimeoutMs(AUTO, recentOf(50, { typicalMs: 800 }), { streamedInputTokens: undefined, lastOption: false })).toBe(30_000);
  });

  it('is the maximum for the last option of the plan, which has nothing to fail over to', () => {
    expect(firstTokenTimeoutMs(AUTO, recentOf(50, { typicalMs: 800 }), { streamedInputTokens: 1_000, lastOption: true })).toBe(30_000);
  });

  it('is never below the minimum', () => {
    expect(firstTokenTimeoutMs(AUTO, recentOf(50, { typicalMs: 40 }), streamed(1_000))).toBe(1_000);
    expect(firstTokenTimeoutMs({ ...AUTO, first_token_min_ms: 300 }, recentOf(50, { typicalMs: 4 }), streamed(1_000))).toBe(300);
  });

  it('grows with the input in proportion to the typical size, up to the maximum', () => {
    const recent = recentOf(50, { typicalMs: 800, inputTokens: 2_000 });
    expect(firstTokenTimeoutMs(AUTO, recent, streamed(2_000))).toBe(1_600);
    // Four times the typical prompt: four times the timeout.
    expect(firstTokenTimeoutMs(AUTO, recent, streamed(8_000))).toBe(6_400);
    expect(firstTokenTimeoutMs(AUTO, recent, streamed(100_000))).toBe(30_000);
  });

  it('is not shortened for a prompt smaller than the typical one', () => {
    expect(firstTokenTimeoutMs(AUTO, recentOf(50, { typicalMs: 800, inputTokens: 2_000 }), streamed(10))).toBe(1_600);
  });

  it('treats samples of empty prompts as one token each, not a division by zero', () => {
    expect(firstTokenTimeoutMs(AUTO, recentOf(50, { typicalMs: 800, inputTokens: 0 }), streamed(3))).toBe(4_800);
  });
});
