import type { ResolvedRoute, ResolvedTarget } from '../routing/resolve-route.js';

/** One request the drill sends: the route narrowed, and the targets that fail inside the gateway. */
export interface PlannedDrillStep {
  step: 'target' | 'chain';
  /** 1-based position of `target` in the route. */
  position: number;
  /** The target whose answer decides the step. */
  target: ResolvedTarget;
  route: ResolvedRoute;
  forcedFailures: ReadonlySet<ResolvedTarget>;
}

const NONE: ReadonlySet<ResolvedTarget> = new Set();

/**
 * A route's drill, in the order it runs: every target alone, then the chain walk — for each
 * k = 1 … n−1 the route cut to its first k+1 targets with the first k failed on purpose, so only
 * target k+1 can answer. Targets keep the route's resolved order (priority tiers, then config
 * order), whatever its strategy: a weighted or least-latency route is walked in that order too.
 */
export function planDrillSteps(route: ResolvedRoute): PlannedDrillStep[] {
  const { targets } = route;
  const alone = targets.map((target, index): PlannedDrillStep => ({
    step: 'target',
    position: index + 1,
    target,
    route: { ...route, targets: [target] },
    forcedFailures: NONE,
  }));
  const chain = targets.slice(1).map((target, index): PlannedDrillStep => ({
    step: 'chain',
    position: index + 2,
    target,
    route: { ...route, targets: targets.slice(0, index + 2) },
    forcedFailures: new Set(targets.slice(0, index + 1)),
  }));
  return [...alone, ...chain];
}
