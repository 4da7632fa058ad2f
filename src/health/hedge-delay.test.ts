import { describe, expect, it } from 'vitest';
import { FirstTokenSamples, NO_FIRST_TOKENS, type RecentFirstTokens } from './first-token-samples.js';
import { hedgeDelayMs } from './hedge-delay.js';

/** Samples of 100, 200, … `count` × 100 ms. */
function recentOf(count: number): RecentFirstTokens {
  const samples = new FirstTokenSamples();
  for (let index = 1; index <= count; index++) samples.observe({ firstTokenMs: index * 100, inputTokens: 1_000 }, 0);
  return samples.recent(0);
}

describe('hedgeDelayMs', () => {
  it('uses a number as written, streamed or not, whatever the samples', () => {
    expect(hedgeDelayMs(2_000, NO_FIRST_TOKENS, true)).toBe(2_000);
    expect(hedgeDelayMs(2_000, recentOf(40), false)).toBe(2_000);
  });

  it('auto is the p95 of the recent first-token times', () => {
    // 40 samples: p95 is rank 38, 3 800 ms.
    expect(hedgeDelayMs('auto', recentOf(40), true)).toBe(3_800);
    expect(hedgeDelayMs('auto', recentOf(20), true)).toBe(1_900);
  });

  it('auto does not hedge with fewer than 20 samples', () => {
    expect(hedgeDelayMs('auto', recentOf(19), true)).toBeUndefined();
    expect(hedgeDelayMs('auto', NO_FIRST_TOKENS, true)).toBeUndefined();
  });

  it('auto does not hedge an answer that comes whole', () => {
    expect(hedgeDelayMs('auto', recentOf(40), false)).toBeUndefined();
  });
});
