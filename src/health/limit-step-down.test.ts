import { describe, expect, it } from 'vitest';
import { LimitStepDownDetector, MAX_TRACKED_DEPLOYMENTS } from './limit-step-down.js';
import type { QuotaSnapshot } from './quota-headers.js';

const DEPLOYMENT = 'openai-prod/gpt-4.1';

function limits(requests: number, tokens = 800_000): QuotaSnapshot {
  return { requests: { limit: requests, remaining: requests - 1 }, tokens: { limit: tokens } };
}

/** One response every `stepMs` in [fromMs, toMs), all with the same limits. */
function observeEvery(detector: LimitStepDownDetector, stepMs: number, fromMs: number, toMs: number, snapshot: QuotaSnapshot): void {
  for (let atMs = fromMs; atMs < toMs; atMs += stepMs) {
    expect(detector.observe(DEPLOYMENT, snapshot, atMs)).toEqual([]);
  }
}

describe('LimitStepDownDetector', () => {
  it('reports a limit that steps down while traffic held', () => {
    const detector = new LimitStepDownDetector();
    observeEvery(detector, 5_000, 0, 120_000, limits(5_000));
    expect(detector.observe(DEPLOYMENT, limits(4_000), 120_000)).toEqual([
      { quota: 'requests', previousLimit: 5_000, limit: 4_000, responsesLastMinute: 12, responsesMinuteBefore: 12 },
    ]);
  });

  it('reports every limit that stepped down in one response', () => {
    const detector = new LimitStepDownDetector();
    observeEvery(detector, 5_000, 0, 120_000, limits(5_000, 800_000));
    expect(detector.observe(DEPLOYMENT, limits(5_000 - 1, 400_000), 120_000).map((found) => [found.quota, found.limit])).toEqual([
      ['requests', 4_999],
      ['tokens', 400_000],
    ]);
  });

  it('stays quiet when traffic fell, and remembers the new limit', () => {
    const detector = new LimitStepDownDetector();
    observeEvery(detector, 5_000, 0, 60_000, limits(5_000)); // 12 responses in the minute before
    observeEvery(detector, 10_000, 60_000, 120_000, limits(5_000)); // 6 in the last minute
    expect(detector.observe(DEPLOYMENT, limits(4_000), 120_000)).toEqual([]);
    // The fall was taken as the explanation: the same limit later is no new step-down.
    observeEvery(detector, 2_000, 120_000, 240_000, limits(4_000));
  });

  it('reports one cut once, and never a limit that rises', () => {
    const detector = new LimitStepDownDetector();
    observeEvery(detector, 5_000, 0, 60_000, limits(5_000));
    expect(detector.observe(DEPLOYMENT, limits(4_000), 60_000)).toHaveLength(1);
    expect(detector.observe(DEPLOYMENT, limits(4_000), 61_000)).toEqual([]);
    expect(detector.observe(DEPLOYMENT, limits(6_000), 62_000)).toEqual([]);
    expect(detector.observe(DEPLOYMENT, limits(5_000), 63_000)).toHaveLength(1);
  });

  it('counts responses without headers as traffic', () => {
    const detector = new LimitStepDownDetector();
    observeEvery(detector, 5_000, 0, 60_000, limits(5_000));
    for (let atMs = 60_000; atMs < 120_000; atMs += 5_000) expect(detector.observe(DEPLOYMENT, undefined, atMs)).toEqual([]);
    expect(detector.observe(DEPLOYMENT, limits(4_000), 120_000)).toEqual([
      { quota: 'requests', previousLimit: 5_000, limit: 4_000, responsesLastMinute: 12, responsesMinuteBefore: 12 },
    ]);
  });

  it('keeps limits per deployment: two models of one connection are two limits', () => {
    const detector = new LimitStepDownDetector();
    for (let atMs = 0; atMs < 60_000; atMs += 1_000) {
      expect(detector.observe('openai-prod/gpt-4.1', limits(5_000), atMs)).toEqual([]);
      expect(detector.observe('openai-prod/gpt-4.1-mini', limits(30_000), atMs)).toEqual([]);
    }
  });

  it(`forgets the least recently observed deployment beyond ${MAX_TRACKED_DEPLOYMENTS}`, () => {
    const detector = new LimitStepDownDetector();
    detector.observe('first/model', limits(5_000), 0);
    detector.observe('second/model', limits(5_000), 0);
    detector.observe('first/model', limits(5_000), 0);
    for (let index = 0; index < MAX_TRACKED_DEPLOYMENTS - 1; index++) detector.observe(`other-${index}/model`, limits(5_000), 0);
    expect(detector.observe('first/model', limits(4_000), 0)).toHaveLength(1);
    expect(detector.observe('second/model', limits(4_000), 0)).toEqual([]);
  });
});
