import { describe, expect, it } from 'vitest';
import { DEFAULT_COOLING_MS, MAX_COOLING_MS } from '../core/cooling-durations.js';
import { Cooling, type CoolingCause, type SharedCooling } from './cooling.js';

const throttled = (retryAfterMs?: number): CoolingCause => ({ kind: 'rate_limit', httpStatus: 429, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });

describe('Cooling', () => {
  it('cools for the Retry-After, capped, with a default when absent', () => {
    let nowMs = 1_000;
    const cooling = new Cooling({ now: () => nowMs });
    expect(cooling.cool('a/m', throttled(2_000))).toBe(3_000);
    expect(cooling.cool('b/m', throttled())).toBe(1_000 + DEFAULT_COOLING_MS);
    expect(cooling.cool('c/m', throttled(3_600_000))).toBe(1_000 + MAX_COOLING_MS);
    expect(cooling.coolingUntil('a/m')).toBe(3_000);
    nowMs = 3_000;
    expect(cooling.coolingUntil('a/m')).toBeUndefined();
    expect(cooling.coolingUntil('b/m')).toBe(1_000 + DEFAULT_COOLING_MS);
  });

  it('keeps what cooled the deployment and since when, until the cooling ends', () => {
    let nowMs = 1_000;
    const cooling = new Cooling({ now: () => nowMs });
    const cause: CoolingCause = { kind: 'quota_exhausted', httpStatus: 429, retryAfterMs: 3_600_000 };
    cooling.cool('a/m', cause);
    nowMs = 5_000;
    expect(cooling.spell('a/m')).toEqual({ sinceMs: 1_000, untilMs: 1_000 + MAX_COOLING_MS, cause });
    nowMs = 1_000 + MAX_COOLING_MS;
    expect(cooling.spell('a/m')).toBeUndefined();
  });

  it('a shorter Retry-After never shortens a longer cooling, nor replaces its cause', () => {
    const cooling = new Cooling({ now: () => 0 });
    cooling.cool('a/m', throttled(10_000));
    cooling.cool('a/m', { kind: 'quota_exhausted', retryAfterMs: 1_000 });
    expect(cooling.spell('a/m')).toEqual({ sinceMs: 0, untilMs: 10_000, cause: throttled(10_000) });
  });
});

describe('Cooling across replicas', () => {
  it('tells of cooling set here, with its cause, not of cooling adopted', () => {
    const heard: [string, SharedCooling][] = [];
    const cooling = new Cooling({ now: () => 1_000, onCooled: (deployment, shared) => heard.push([deployment, shared]) });
    cooling.cool('a/m', throttled(2_000));
    expect(cooling.adopt('b/m', 4_000, { coolingMs: 4_000, cause: throttled(4_000) })).toBe(5_000);
    expect(heard).toEqual([['a/m', { coolingMs: 2_000, cause: throttled(2_000) }]]);
    expect(cooling.coolingUntil('b/m')).toBe(5_000);
  });

  it('an adopted cooling that began elsewhere earlier dates from its start on this clock', () => {
    const cooling = new Cooling({ now: () => 50_000 });
    // 30 s set, 12 s of it left: it began 18 s ago.
    cooling.adopt('a/m', 12_000, { coolingMs: 30_000, cause: throttled() });
    expect(cooling.spell('a/m')).toEqual({ sinceMs: 32_000, untilMs: 62_000, cause: throttled() });
  });

  it('a cooling heard without a cause (from an older replica) is kept, its cause unknown', () => {
    const cooling = new Cooling({ now: () => 0 });
    cooling.adopt('a/m', 5_000, { coolingMs: 5_000 });
    expect(cooling.spell('a/m')).toEqual({ sinceMs: 0, untilMs: 5_000, cause: undefined });
  });
});
