import { describe, expect, it } from 'vitest';
import { Cooling } from './cooling.js';
import { MAX_COOLING_MS } from '../core/cooling-durations.js';
import { DEFAULT_COOLING_MS } from '../core/cooling-durations.js';

describe('Cooling', () => {
  it('cools for the Retry-After, capped, with a default when absent', () => {
    let nowMs = 1_000;
    const cooling = new Cooling(() => nowMs);
    expect(cooling.cool('a/m', 2_000)).toBe(3_000);
    expect(cooling.cool('b/m', undefined)).toBe(1_000 + DEFAULT_COOLING_MS);
    expect(cooling.cool('c/m', 3_600_000)).toBe(1_000 + MAX_COOLING_MS);
    expect(cooling.coolingUntil('a/m')).toBe(3_000);
    nowMs = 3_000;
    expect(cooling.coolingUntil('a/m')).toBeUndefined();
    expect(cooling.coolingUntil('b/m')).toBe(1_000 + DEFAULT_COOLING_MS);
  });

  it('a shorter Retry-After never shortens a longer cooling', () => {
    const cooling = new Cooling(() => 0);
    cooling.cool('a/m', 10_000);
    cooling.cool('a/m', 1_000);
    expect(cooling.coolingUntil('a/m')).toBe(10_000);
  });
});

describe('Cooling across replicas', () => {
  it('tells of cooling set here, not of cooling adopted', () => {
    const cooling = new Cooling(() => 1_000);
    const heard: [string, number][] = [];
    cooling.onCooled = (deployment, coolingMs) => heard.push([deployment, coolingMs]);
    cooling.cool('a/m', 2_000);
    expect(cooling.adopt('b/m', 4_000)).toBe(5_000);
    expect(heard).toEqual([['a/m', 2_000]]);
    expect(cooling.coolingUntil('b/m')).toBe(5_000);
  });
});
