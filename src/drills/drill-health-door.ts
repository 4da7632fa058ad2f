import { DEFAULT_ROUTE_HEALTH, type Config, type TimeoutsConfig } from '../config/schema.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import type { AdmitOptions, HealthDoor, Out, OutCause, Permit } from '../health/health-door.js';
import type { FirstTokenAttempt, FirstTokenTimeout } from '../health/first-token-timeout.js';
import type { HealthState } from '../health/health-registry.js';
import type { ResponseHeaders } from '../providers/spec.js';
import type { ResolvedRoute, ResolvedTarget } from '../routing/resolve-route.js';

export interface DrillHealthDoorDeps {
  /** The engine's own door: load, breakers, structural faults and the permits that feed them. */
  engine: HealthDoor;
  registry: HealthState;
  config(): Config;
}

/**
 * The door a drill step goes through (one per step). The drill exists to try what callers'
 * requests avoid, so every target of the narrowed route is planned as given and admitted as a
 * last resort — ejected, structural and cooling ones included — while load shedding still
 * applies: a connection at its in-flight limit is busy, and the step is skipped, not failed.
 * Real attempts settle through the engine's permit and so feed health like any attempt (an
 * expired key becomes a structural credential fault at once); a success on a structural
 * deployment re-admits it, as an active probe's would, on every replica.
 */
export class DrillHealthDoor implements HealthDoor {
  readonly #deps: DrillHealthDoorDeps;
  #sawBusy = false;

  constructor(deps: DrillHealthDoorDeps) {
    this.#deps = deps;
  }

  /** Whether a target was refused for load (its connection at `max_in_flight`). */
  get sawBusy(): boolean {
    return this.#sawBusy;
  }

  plan(route: ResolvedRoute): readonly ResolvedTarget[] {
    return route.targets;
  }

  async admit(target: ResolvedTarget, route: ResolvedRoute, options: AdmitOptions = {}): Promise<Permit | Out> {
    const permit = await this.#deps.engine.admit(target, route, { ...options, lastResort: true });
    if (permit.out) {
      if (permit.reason === 'busy') this.#sawBusy = true;
      return permit;
    }
    return new ReadmittingPermit(permit, () => this.#readmitIfStructural(target, route));
  }

  coolingEndsAtMs(route: ResolvedRoute): number | undefined {
    return this.#deps.engine.coolingEndsAtMs(route);
  }

  coolingUntilMs(target: ResolvedTarget): number | undefined {
    return this.#deps.engine.coolingUntilMs(target);
  }

  outCauseOf(target: ResolvedTarget): OutCause {
    return this.#deps.engine.outCauseOf(target);
  }

  #readmitIfStructural(target: ResolvedTarget, route: ResolvedRoute): void {
    const { registry } = this.#deps;
    const deployment = registry.deployment(target.connectionName, target.routedModel, route.policy.health ?? DEFAULT_ROUTE_HEALTH, this.#deps.config().health);
    if (deployment.structural.state === 'structural') registry.probeSucceeded(deployment);
  }
}

/** The engine's permit, and on a success the re-admission a probe would make. */
class ReadmittingPermit implements Permit {
  readonly out = false;
  readonly #inner: Permit;
  readonly #onSuccess: () => void;

  constructor(inner: Permit, onSuccess: () => void) {
    this.#inner = inner;
    this.#onSuccess = onSuccess;
  }

  observeHeaders(headers: ResponseHeaders): void {
    this.#inner.observeHeaders(headers);
  }

  firstTokenTimeout(timeouts: TimeoutsConfig, attempt: FirstTokenAttempt): FirstTokenTimeout {
    return this.#inner.firstTokenTimeout(timeouts, attempt);
  }

  /** A step proves one target answers alone; a hedge beside it would prove nothing of the kind. */
  hedgeAfterMs(): undefined {
    return undefined;
  }

  settle(record: AttemptRecord): void {
    this.#inner.settle(record);
    if (record.kind === 'ok') this.#onSuccess();
  }
}
