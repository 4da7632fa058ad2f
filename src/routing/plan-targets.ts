import type { RouteConfig } from '../config/schema.js';
import type { ResolvedTarget } from './resolve-route.js';

export interface PlanInputs {
  /** The deployment's recent latency, or undefined before it has answered. */
  latencyOf(target: ResolvedTarget): number | undefined;
  /** In [0, 1); injectable so tests can fix the draw. */
  random(): number;
}

/**
 * The order to try a route's targets in, for one request (README.md configuration, docs/lifecycle.md). `targets` come resolved
 * in tiers — same-model before `model_change`, then ascending `priority`, then config order — and
 * the route's strategy reorders each run of equal tier: `priority` keeps config order, `weighted`
 * draws by `weight` (without replacement, so every target is still tried), `least_latency` puts
 * targets with no latency yet first (they must be measured) and then the fastest.
 */
export function planTargets(targets: readonly ResolvedTarget[], strategy: RouteConfig['strategy'], inputs: PlanInputs): readonly ResolvedTarget[] {
  if (strategy === 'priority' || targets.length < 2) return targets;
  const planned: ResolvedTarget[] = [];
  for (let start = 0; start < targets.length; ) {
    let end = start + 1;
    while (end < targets.length && sameTier(targets[start]!, targets[end]!)) end++;
    const tier = targets.slice(start, end);
    planned.push(...(strategy === 'weighted' ? weightedOrder(tier, inputs.random) : fastestFirst(tier, inputs.latencyOf)));
    start = end;
  }
  return planned;
}

/**
 * The plan with a session's bound target moved to the front (session affinity, docs/sessions.md),
 * whatever the strategy put first; unchanged when the plan left it out (cooling). An ejected or
 * structurally out target stays in the plan and is passed over at admission like any other.
 */
export function boundFirst(planned: readonly ResolvedTarget[], bound: ResolvedTarget | undefined): readonly ResolvedTarget[] {
  if (bound === undefined || planned[0] === bound || !planned.includes(bound)) return planned;
  return [bound, ...planned.filter((target) => target !== bound)];
}

function sameTier(a: ResolvedTarget, b: ResolvedTarget): boolean {
  return a.modelChange === b.modelChange && a.config.priority === b.config.priority;
}

function weightedOrder(tier: ResolvedTarget[], random: () => number): ResolvedTarget[] {
  const left = [...tier];
  const ordered: ResolvedTarget[] = [];
  while (left.length > 1) {
    const total = left.reduce((sum, target) => sum + target.config.weight, 0);
    let draw = random() * total;
    let index = 0;
    while (index < left.length - 1 && draw >= left[index]!.config.weight) draw -= left[index++]!.config.weight;
    ordered.push(...left.splice(index, 1));
  }
  return [...ordered, ...left];
}

function fastestFirst(tier: ResolvedTarget[], latencyOf: (target: ResolvedTarget) => number | undefined): ResolvedTarget[] {
  const latency = new Map(tier.map((target) => [target, latencyOf(target) ?? -1]));
  // Array.prototype.sort is stable: equal latencies (and unmeasured ones) keep config order.
  return [...tier].sort((a, b) => latency.get(a)! - latency.get(b)!);
}

/**
 * Whether `served` is one of the targets the route prefers: its first target, or under `weighted`
 * and `least_latency`, any target of the first tier (those strategies spread traffic over it on
 * purpose). Anything else answering is a fallback (docs/health.md, fallback share).
 */
export function isPrimaryTarget(targets: readonly ResolvedTarget[], strategy: RouteConfig['strategy'], served: ResolvedTarget): boolean {
  const first = targets[0];
  if (first === undefined) return false;
  const candidates = strategy === 'priority' ? [first] : targets.filter((target) => sameTier(first, target));
  return candidates.some((target) => target.connectionName === served.connectionName && target.routedModel === served.routedModel);
}
