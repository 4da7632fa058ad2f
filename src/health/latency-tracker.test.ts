import { describe, expect, it } from 'vitest';
import { FIRST_TOKEN_HORIZON_MS } from './first-token-samples.js';
import { LatencyTracker } from './latency-tracker.js';

describe('LatencyTracker', () => {
  it('averages every answer for least_latency, but keeps first-token times of streams only', () => {
    const tracker = new LatencyTracker(() => 0);
    tracker.observe('c/m', { latencyMs: 100, firstToken: { firstTokenMs: 90, inputTokens: 12 } });
    tracker.observe('c/m', { latencyMs: 2_000 });
    expect(tracker.estimate('c/m')).toBeCloseTo(100 + 0.3 * 1_900);
    const recent = tracker.recentFirstTokens('c/m');
    expect(recent.samples).toBe(1);
    expect(recent.quantileMs(0.99)).toBe(90);
    expect(recent.typicalInputTokens).toBe(12);
  });

  it('keeps each deployment apart, and forgets one on request', () => {
    const tracker = new LatencyTracker(() => 0);
    tracker.observe('c/a', { latencyMs: 10, firstToken: { firstTokenMs: 10, inputTokens: 1 } });
    tracker.observe('c/b', { latencyMs: 20, firstToken: { firstTokenMs: 20, inputTokens: 1 } });
    tracker.forget('c/a');
    expect(tracker.estimate('c/a')).toBeUndefined();
    expect(tracker.recentFirstTokens('c/a').samples).toBe(0);
    expect(tracker.recentFirstTokens('c/b').quantileMs(0.99)).toBe(20);
  });

  it('reads first-token times on its clock: old ones stop counting', () => {
    let nowMs = 0;
    const tracker = new LatencyTracker(() => nowMs);
    tracker.observe('c/m', { latencyMs: 10, firstToken: { firstTokenMs: 10, inputTokens: 1 } });
    nowMs = FIRST_TOKEN_HORIZON_MS;
    expect(tracker.recentFirstTokens('c/m').samples).toBe(0);
  });
});
