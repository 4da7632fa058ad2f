import { describe, expect, it } from 'vitest';
import { FallbackShare, MIN_REQUESTS_FOR_SHARE } from './fallback-share.js';

describe('FallbackShare', () => {
  it('has no share below the minimum volume', () => {
    const shares = new FallbackShare();
    for (let index = 0; index < MIN_REQUESTS_FOR_SHARE - 1; index++) shares.record('r', true, 1_000);
    expect(shares.share('r', 1_000)).toBeUndefined();
    shares.record('r', false, 1_000);
    expect(shares.share('r', 1_000)).toBe(0.9);
  });

  it('forgets traffic older than a minute', () => {
    const shares = new FallbackShare();
    for (let index = 0; index < 20; index++) shares.record('r', true, 0);
    expect(shares.share('r', 61_000)).toBeUndefined();
  });

  it('reports a crossing once it has lasted forS, once per episode', () => {
    const shares = new FallbackShare();
    const fill = (atMs: number, byFallback: boolean) => {
      for (let index = 0; index < 10; index++) shares.record('r', byFallback, atMs);
    };
    fill(0, true);
    expect(shares.crossedFor('r', 0.2, 5, 0)).toBe(false);
    expect(shares.crossedFor('r', 0.2, 5, 4_000)).toBe(false);
    expect(shares.crossedFor('r', 0.2, 5, 5_000)).toBe(true);
    expect(shares.crossedFor('r', 0.2, 5, 6_000)).toBe(false);
    fill(7_000, false);
    fill(7_000, false);
    fill(7_000, false);
    fill(7_000, false);
    expect(shares.crossedFor('r', 0.2, 5, 7_000)).toBe(false);
    fill(8_000, true);
    fill(8_000, true);
    expect(shares.crossedFor('r', 0.2, 5, 8_000)).toBe(false);
    expect(shares.crossedFor('r', 0.2, 5, 13_000)).toBe(true);
  });
});

describe('FallbackShare: the fleet’s figures', () => {
  it('follow the fleet while fresh, then this replica’s own again', () => {
    const heard: boolean[] = [];
    const shares = new FallbackShare({ onRecorded: (_route, byFallback) => heard.push(byFallback) });
    for (let index = 0; index < 10; index++) shares.record('r', true, 1_000);
    shares.adoptFleet('r', 40, 10, 1_000);
    expect(shares.share('r', 2_000)).toBe(0.25);
    expect(shares.share('r', 10_000)).toBe(1);
    expect(heard).toHaveLength(10);
  });
});
