import { DEFAULT_ROUTE_HEALTH, type Config } from '../config/schema.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import { deploymentKey } from '../core/deployment-key.js';
import { FAILURE_POLICY } from '../core/failure-policy.js';
import type { ResponseHeaders } from '../providers/spec.js';
import type { LatencyTracker } from '../routing/latency-tracker.js';
import { planTargets } from '../routing/plan-targets.js';
import type { ResolvedRoute, ResolvedTarget } from '../routing/resolve-route.js';
import type { Permit as BreakerPermit } from './breaker.js';
import type { ConnectionLoad } from './connection-load.js';
import type { Cooling } from './cooling.js';
import type { AdmitOptions, HealthDoor, Out, OutReason, Permit } from './health-door.js';
import type { DeploymentHealth, HealthState } from './health-registry.js';

export interface LocalHealthDoorDeps {
  registry: HealthState;
  cooling: Cooling;
  load: ConnectionLoad;
  latency: LatencyTracker;
  config(): Config;
  /** In [0, 1), for `weighted` routes; injectable so tests can fix the draw. */
  random?: () => number;
  now?: () => number;
}

/** The health door over state kept in this process. */
export class LocalHealthDoor implements HealthDoor {
  readonly #deps: LocalHealthDoorDeps;
  readonly #now: () => number;
  readonly #random: () => number;

  constructor(deps: LocalHealthDoorDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#random = deps.random ?? Math.random;
  }

  plan(route: ResolvedRoute): readonly ResolvedTarget[] {
    const { latency, cooling } = this.#deps;
    const planned = planTargets(route.targets, route.policy.strategy, { latencyOf: (target) => latency.estimate(keyOf(target)), random: this.#random });
    return planned.filter((target) => cooling.coolingUntil(keyOf(target)) === undefined);
  }

  admit(target: ResolvedTarget, route: ResolvedRoute, options: AdmitOptions = {}): Permit | Out {
    const { registry, cooling, load } = this.#deps;
    const deployment = registry.deployment(target.connectionName, target.routedModel, route.policy.health ?? DEFAULT_ROUTE_HEALTH, this.#deps.config().health);
    let breakerPermit: BreakerPermit | undefined;
    if (options.lastResort) {
      breakerPermit = deployment.breaker.forceAdmit();
    } else {
      const coolingUntilMs = options.retry ? undefined : cooling.coolingUntil(deployment.key);
      if (coolingUntilMs !== undefined) return out('cooling', coolingUntilMs);
      if (deployment.structural.state === 'structural') return out('structural', deployment.structural.nextProbeAtMs ?? Number.MAX_SAFE_INTEGER);
      breakerPermit = deployment.breaker.admit();
      if (!breakerPermit) return out('ejected', deployment.breaker.ejectedUntilMs ?? this.#now());
    }
    // A full connection is busy, not failing: nothing is recorded against it.
    if (!load.tryAcquire(target.connectionName, target.connection.max_in_flight)) {
      deployment.breaker.record(breakerPermit, 'neutral');
      return out('busy', this.#now());
    }
    registry.dispatched(deployment);
    return new DeploymentPermit(this.#deps, deployment, breakerPermit);
  }

  coolingEndsAtMs(route: ResolvedRoute): number | undefined {
    let earliest: number | undefined;
    for (const target of route.targets) {
      const untilMs = this.#deps.cooling.coolingUntil(keyOf(target));
      if (untilMs !== undefined && (earliest === undefined || untilMs < earliest)) earliest = untilMs;
    }
    return earliest;
  }
}

class DeploymentPermit implements Permit {
  readonly out = false;
  readonly #deps: LocalHealthDoorDeps;
  readonly #deployment: DeploymentHealth;
  readonly #breakerPermit: BreakerPermit;

  constructor(deps: LocalHealthDoorDeps, deployment: DeploymentHealth, breakerPermit: BreakerPermit) {
    this.#deps = deps;
    this.#deployment = deployment;
    this.#breakerPermit = breakerPermit;
  }

  observeHeaders(headers: ResponseHeaders): void {
    this.#deps.registry.observeHeaders(this.#deployment, headers);
  }

  settle(record: AttemptRecord): void {
    const { registry, cooling, load, latency } = this.#deps;
    const deployment = this.#deployment;
    if (record.kind === 'ok') latency.observe(deployment.key, record.firstTokenMs ?? record.latencyMs);
    load.release(deployment.connection);
    registry.settled(deployment, this.#breakerPermit, record.kind, record.message);
    if (record.kind !== 'ok' && FAILURE_POLICY[record.kind].cools) cooling.cool(deployment.key, record.retryAfterMs);
  }
}

function out(reason: OutReason, untilMs: number): Out {
  return { out: true, reason, untilMs };
}

function keyOf(target: ResolvedTarget): string {
  return deploymentKey(target.connectionName, target.routedModel);
}
