import { describe, expect, it } from 'vitest';
import { configSchema } from '../config/schema.js';
import { boundFirst, isPrimaryTarget, planTargets } from './plan-targets.js';
import { resolveRoute, type ResolvedTarget } from './resolve-route.js';

/**
 * Targets here are told apart by their model names but stand for deployments of one model, so
 * none is a model change unless the test writes it (unwritten, different names would be inferred one).
 */
function route(strategy: string, targets: object[]) {
  const config = configSchema.parse({
    connections: { c: { provider: 'mock' } },
    routes: { r: { strategy, targets: targets.map((target) => ({ connection: 'c', model_change: false, ...target })) } },
  });
  return resolveRoute(config, 'r');
}

const models = (targets: readonly ResolvedTarget[]) => targets.map((target) => target.routedModel);
const noLatency = { latencyOf: () => undefined, random: () => 0 };

describe('planTargets', () => {
  it('tries same-model targets before model changes, then by ascending priority, then in config order', () => {
    const resolved = route('priority', [
      { model: 'change', model_change: true },
      { model: 'second', priority: 2 },
      { model: 'first-a', priority: 1 },
      { model: 'first-b', priority: 1 },
    ]);
    expect(models(planTargets(resolved.targets, 'priority', noLatency))).toEqual(['first-a', 'first-b', 'second', 'change']);
  });

  it('weighted: draws within a tier by weight, without replacement, leaving tiers in place', () => {
    const resolved = route('weighted', [
      { model: 'heavy', weight: 3 },
      { model: 'light', weight: 1 },
      { model: 'backup', priority: 5 },
    ]);
    // A draw in the first three quarters picks `heavy`, the last quarter `light`.
    expect(models(planTargets(resolved.targets, 'weighted', { ...noLatency, random: () => 0.5 }))).toEqual(['heavy', 'light', 'backup']);
    expect(models(planTargets(resolved.targets, 'weighted', { ...noLatency, random: () => 0.8 }))).toEqual(['light', 'heavy', 'backup']);
  });

  it('weighted: picks each target first in proportion to its weight', () => {
    const resolved = route('weighted', [
      { model: 'a', weight: 3 },
      { model: 'b', weight: 1 },
    ]);
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    let firstA = 0;
    for (let draw = 0; draw < 4000; draw++) if (planTargets(resolved.targets, 'weighted', { latencyOf: () => undefined, random })[0]!.routedModel === 'a') firstA++;
    expect(firstA / 4000).toBeGreaterThan(0.72);
    expect(firstA / 4000).toBeLessThan(0.78);
  });

  it('least_latency: unmeasured targets first, then the fastest, within a tier', () => {
    const resolved = route('least_latency', [{ model: 'slow' }, { model: 'fast' }, { model: 'new' }, { model: 'later', priority: 1 }]);
    const latency: Record<string, number> = { slow: 900, fast: 120, later: 1 };
    const plan = planTargets(resolved.targets, 'least_latency', { latencyOf: (target) => latency[target.routedModel], random: () => 0 });
    expect(models(plan)).toEqual(['new', 'fast', 'slow', 'later']);
  });
});

describe('isPrimaryTarget', () => {
  it('is the first target under priority, and any first-tier target under the spreading strategies', () => {
    const targets = [{ model: 'a' }, { model: 'b' }, { model: 'c', priority: 1 }];
    const [a, b, c] = route('priority', targets).targets;
    expect([a, b, c].map((target) => isPrimaryTarget(route('priority', targets).targets, 'priority', target!))).toEqual([true, false, false]);
    expect([a, b, c].map((target) => isPrimaryTarget(route('weighted', targets).targets, 'weighted', target!))).toEqual([true, true, false]);
  });
});

describe('boundFirst', () => {
  it("puts a session's bound target first, whatever tier or strategy placed it, and leaves a plan without it alone", () => {
    const [a, b, change] = route('priority', [{ model: 'a' }, { model: 'b' }, { model: 'change', model_change: true }]).targets;
    expect(models(boundFirst([a!, b!, change!], change))).toEqual(['change', 'a', 'b']);
    expect(models(boundFirst([a!, b!, change!], b))).toEqual(['b', 'a', 'change']);
    // Cooling left `b` out of the plan: the strategy's order stands.
    expect(models(boundFirst([a!, change!], b))).toEqual(['a', 'change']);
    expect(models(boundFirst([a!, b!], undefined))).toEqual(['a', 'b']);
  });
});
