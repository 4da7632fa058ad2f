import { describe, expect, it } from 'vitest';
import type { EvidenceSource, FirstTokenEvidence } from './first-token-evidence.js';
import { FirstTokenSamples, NO_FIRST_TOKENS, type RecentFirstTokens } from './first-token-samples.js';
import { firstTokenTimeout, type FirstTokenAttempt } from './first-token-timeout.js';

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

const own = (recent: RecentFirstTokens, source: EvidenceSource = 'own') => ({ source, recent });

/** The timeout of a deployment that has shown nothing of its own unless `shown` says otherwise. */
const timeoutOf = (timeouts: Parameters<typeof firstTokenTimeout>[0], evidence: FirstTokenEvidence | undefined, attempt: FirstTokenAttempt, shown: RecentFirstTokens = NO_FIRST_TOKENS) =>
  firstTokenTimeout(timeouts, evidence, attempt, shown);

/** A streamed, non-reasoning attempt of `inputTokens` with another target after it. */
const streamed = (inputTokens: number, extra: Partial<FirstTokenAttempt> = {}): FirstTokenAttempt => ({ streamedInputTokens: inputTokens, lastOption: false, reasoning: false, ...extra });

describe('firstTokenTimeout', () => {
  it('uses a number as written, whatever the evidence', () => {
    expect(timeoutOf({ ...AUTO, first_token_ms: 15_000 }, own(recentOf(50, { typicalMs: 100 })), streamed(1_000))).toEqual({ timeoutMs: 15_000, source: 'configured', guess: false });
    expect(timeoutOf({ ...AUTO, first_token_ms: 15_000 }, undefined, { streamedInputTokens: undefined, lastOption: true, reasoning: true }).timeoutMs).toBe(15_000);
  });

  it('is twice the p99 of the deployment\'s own samples for a request of typical size', () => {
    // 50 samples: p99 is the slowest (rank 50), 2 400 ms → 4 800 ms.
    expect(timeoutOf(AUTO, own(recentOf(50, { typicalMs: 800, slowMs: 2_400 })), streamed(1_000))).toEqual({ timeoutMs: 4_800, source: 'own', guess: false });
  });

  it('gives borrowed evidence more headroom the further it was borrowed', () => {
    const recent = recentOf(50, { typicalMs: 800 });
    expect(timeoutOf(AUTO, own(recent, 'same_model'), streamed(1_000))).toEqual({ timeoutMs: 2_400, source: 'same_model', guess: true });
    expect(timeoutOf(AUTO, own(recent, 'connection'), streamed(1_000))).toEqual({ timeoutMs: 3_200, source: 'connection', guess: true });
    expect(timeoutOf(AUTO, own(recent, 'route'), streamed(1_000))).toEqual({ timeoutMs: 3_200, source: 'route', guess: true });
  });

  it('never times a deployment below twice the slowest first token it has shown, answered or cut: the guess is widened', () => {
    const fastElsewhere = own(recentOf(50, { typicalMs: 24 }), 'connection');
    expect(timeoutOf(AUTO, fastElsewhere, streamed(1_000))).toEqual({ timeoutMs: 1_000, source: 'connection', guess: true });
    // Three answers of its own at 2.5 s: too few to time it by, enough to say a 1 s guess is short.
    expect(timeoutOf(AUTO, fastElsewhere, streamed(1_000), recentOf(3, { typicalMs: 2_500 }))).toEqual({ timeoutMs: 5_000, source: 'widened', guess: true });
    // Cut once at the cold guess: silent at least 8 s, so the next attempt waits 16 s, past the cold guess: no longer a guess.
    expect(timeoutOf(AUTO, undefined, streamed(1_000), recentOf(1, { typicalMs: 8_000 }))).toEqual({ timeoutMs: 16_000, source: 'widened', guess: false });
    expect(timeoutOf(AUTO, undefined, streamed(1_000), recentOf(1, { typicalMs: 16_000 }))).toEqual({ timeoutMs: 30_000, source: 'widened', guess: false });
    // A guess longer than what it showed stands.
    expect(timeoutOf(AUTO, undefined, streamed(1_000), recentOf(3, { typicalMs: 900 }))).toEqual({ timeoutMs: 8_000, source: 'cold', guess: true });
  });

  it('with no evidence at all: the cold default for a request that does not reason, growing with a long prompt; the maximum for one that does', () => {
    expect(timeoutOf(AUTO, undefined, streamed(1_000))).toEqual({ timeoutMs: 8_000, source: 'cold', guess: true });
    expect(timeoutOf(AUTO, undefined, streamed(24_000))).toEqual({ timeoutMs: 24_000, source: 'cold', guess: true });
    expect(timeoutOf(AUTO, undefined, streamed(200_000))).toEqual({ timeoutMs: 30_000, source: 'cold', guess: false });
    expect(timeoutOf(AUTO, undefined, streamed(1_000, { reasoning: true }))).toEqual({ timeoutMs: 30_000, source: 'maximum', guess: false });
  });

  it('is the maximum for an answer that comes whole', () => {
    expect(timeoutOf(AUTO, own(recentOf(50, { typicalMs: 800 })), { streamedInputTokens: undefined, lastOption: false, reasoning: false })).toEqual({ timeoutMs: 30_000, source: 'maximum', guess: false });
  });

  it('is the maximum for the last option of the plan, which has nothing to fail over to', () => {
    expect(timeoutOf(AUTO, own(recentOf(50, { typicalMs: 800 })), streamed(1_000, { lastOption: true }))).toEqual({ timeoutMs: 30_000, source: 'maximum', guess: false });
  });

  it('is never below the minimum', () => {
    expect(timeoutOf(AUTO, own(recentOf(50, { typicalMs: 40 })), streamed(1_000)).timeoutMs).toBe(1_000);
    expect(timeoutOf({ ...AUTO, first_token_min_ms: 300 }, own(recentOf(50, { typicalMs: 4 })), streamed(1_000)).timeoutMs).toBe(300);
  });

  it('grows with the input in proportion to the typical size, up to the maximum', () => {
    const recent = own(recentOf(50, { typicalMs: 800, inputTokens: 2_000 }));
    expect(timeoutOf(AUTO, recent, streamed(2_000)).timeoutMs).toBe(1_600);
    // Four times the typical prompt: four times the timeout.
    expect(timeoutOf(AUTO, recent, streamed(8_000)).timeoutMs).toBe(6_400);
    expect(timeoutOf(AUTO, recent, streamed(100_000)).timeoutMs).toBe(30_000);
  });

  it('is not shortened for a prompt smaller than the typical one', () => {
    expect(timeoutOf(AUTO, own(recentOf(50, { typicalMs: 800, inputTokens: 2_000 })), streamed(10)).timeoutMs).toBe(1_600);
  });

  it('treats samples of empty prompts as one token each, not a division by zero', () => {
    expect(timeoutOf(AUTO, own(recentOf(50, { typicalMs: 800, inputTokens: 0 })), streamed(3)).timeoutMs).toBe(4_800);
  });
});
