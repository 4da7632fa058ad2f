import { describe, expect, it } from 'vitest';
import { FIRST_TOKEN_HORIZON_MS, FIRST_TOKEN_SAMPLES_KEPT, FirstTokenSamples } from './first-token-samples.js';

const T0 = 1_000_000;

function filled(times: readonly number[], atMs = T0): FirstTokenSamples {
  const samples = new FirstTokenSamples();
  for (const firstTokenMs of times) samples.observe({ firstTokenMs, inputTokens: 100 }, atMs);
  return samples;
}

describe('FirstTokenSamples', () => {
  it('answers nearest-rank percentiles of what it holds', () => {
    const recent = filled(Array.from({ length: 100 }, (_, index) => index + 1)).recent(T0);
    expect(recent.samples).toBe(100);
    expect(recent.quantileMs(0.99)).toBe(99);
    expect(recent.quantileMs(0.95)).toBe(95);
    expect(recent.quantileMs(0.5)).toBe(50);
    expect(recent.quantileMs(1)).toBe(100);
  });

  it('with few samples the p99 is the slowest of them', () => {
    expect(filled([30, 10, 20]).recent(T0).quantileMs(0.99)).toBe(30);
  });

  it('has no percentile and no typical size without samples', () => {
    const recent = new FirstTokenSamples().recent(T0);
    expect(recent.samples).toBe(0);
    expect(recent.quantileMs(0.99)).toBeUndefined();
    expect(recent.typicalInputTokens).toBeUndefined();
  });

  it('keeps only the latest samples: the oldest are overwritten', () => {
    const samples = filled(Array.from({ length: FIRST_TOKEN_SAMPLES_KEPT }, () => 5_000));
    for (let index = 0; index < FIRST_TOKEN_SAMPLES_KEPT; index++) samples.observe({ firstTokenMs: 40, inputTokens: 100 }, T0 + 1);
    const recent = samples.recent(T0 + 1);
    expect(recent.samples).toBe(FIRST_TOKEN_SAMPLES_KEPT);
    expect(recent.quantileMs(1)).toBe(40);
  });

  it('one outlier in a full ring does not decide its p99', () => {
    const samples = filled(Array.from({ length: FIRST_TOKEN_SAMPLES_KEPT - 1 }, () => 40));
    samples.observe({ firstTokenMs: 9_000, inputTokens: 100 }, T0);
    expect(samples.recent(T0).quantileMs(0.99)).toBe(40);
  });

  it('forgets samples older than the horizon', () => {
    const samples = filled([1_000, 1_000]);
    samples.observe({ firstTokenMs: 50, inputTokens: 100 }, T0 + 60_000);
    expect(samples.recent(T0 + FIRST_TOKEN_HORIZON_MS - 1).samples).toBe(3);
    const later = samples.recent(T0 + FIRST_TOKEN_HORIZON_MS);
    expect(later.samples).toBe(1);
    expect(later.quantileMs(0.99)).toBe(50);
    expect(samples.recent(T0 + 60_000 + FIRST_TOKEN_HORIZON_MS).samples).toBe(0);
  });

  it('the typical input size is the median of the recent requests', () => {
    const samples = new FirstTokenSamples();
    for (const inputTokens of [10, 5_000, 30, 20, 40]) samples.observe({ firstTokenMs: 100, inputTokens }, T0);
    expect(samples.recent(T0).typicalInputTokens).toBe(30);
  });
});
