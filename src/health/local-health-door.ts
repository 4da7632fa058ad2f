import { DEFAULT_ROUTE_HEALTH, type Config, type HedgeConfig, type TimeoutsConfig } from '../config/schema.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import { deploymentKey } from '../core/deployment-key.js';
import { FAILURE_POLICY } from '../core/failure-policy.js';
import type { ResponseHeaders } from '../providers/spec.js';
import { NO_FIRST_TOKENS, type FirstTokenSample } from './first-token-samples.js';
import { firstTokenTimeout, type FirstTokenAttempt, type FirstTokenTimeout } from './first-token-timeout.js';
import { hedgeDelayMs } from './hedge-delay.js';
import type { LatencyTracker } from './latency-tracker.js';
import { planTargets } from '../routing/plan-targets.js';
import type { ResolvedRoute, ResolvedTarget } from '../routing/resolve-route.js';
import type { BreakerPermit } from './breaker.js';
import { breakerOutcomeOf } from './breaker-outcome.js';
import type { ConnectionLoad } from './connection-load.js';
import type { Cooling, CoolingCause } from './cooling.js';
import type { AdmitOptions, HealthDoor, Out, OutCause, OutReason, Permit, TrialClaims } from './health-door.js';
import { firstTokenEvidenceFor } from './first-token-evidence-for.js';
import type { DeploymentHealth, HealthState } from './health-registry.js';

export interface LocalHealthDoorDeps {
  registry: HealthState;
  cooling: Cooling;
  load: ConnectionLoad;
  latency: LatencyTracker;
  config(): Config;
  /** Where the half-open trial is claimed when replicas share health; absent: this process decides alone. */
  trials?: TrialClaims;
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

  admit(target: ResolvedTarget, route: ResolvedRoute, options: AdmitOptions = {}): Permit | Out | Promise<Permit | Out> {
    const { registry, cooling, trials } = this.#deps;
    const deployment = registry.deployment(target.connectionName, target.routedModel, route.policy.health ?? DEFAULT_ROUTE_HEALTH, this.#deps.config().health);
    if (options.lastResort) return this.#pass(deployment, target, route, deployment.breaker.forceAdmit());
    const coolingUntilMs = options.retry ? undefined : cooling.coolingUntil(deployment.key);
    if (coolingUntilMs !== undefined) return out('cooling', coolingUntilMs);
    if (deployment.structural.state === 'structural') return out('structural', deployment.structural.nextProbeAtMs ?? Number.MAX_SAFE_INTEGER);
    // Only the trial is agreed with other replicas; every other admit answers from the local copy.
    if (!trials || !deployment.breaker.trialDue) return this.#admitBreaker(deployment, target, route, undefined);
    const claimed = trials.claim(deployment);
    if (typeof claimed === 'boolean') return claimed ? this.#admitBreaker(deployment, target, route, trials) : this.#ejected(deployment);
    return claimed.then((won) => (won ? this.#admitBreaker(deployment, target, route, trials) : this.#ejected(deployment)));
  }

  /** `claimedFrom`: the trial claim this admit holds, to free if the breaker does not hand out the trial after all. */
  #admitBreaker(deployment: DeploymentHealth, target: ResolvedTarget, route: ResolvedRoute, claimedFrom: TrialClaims | undefined): Permit | Out {
    const breakerPermit = deployment.breaker.admit();
    if (claimedFrom && !breakerPermit?.trial) claimedFrom.release(deployment);
    return breakerPermit ? this.#pass(deployment, target, route, breakerPermit) : this.#ejected(deployment);
  }

  #ejected(deployment: DeploymentHealth): Out {
    return out('ejected', deployment.breaker.ejectedUntilMs ?? this.#now());
  }

  #pass(deployment: DeploymentHealth, target: ResolvedTarget, route: ResolvedRoute, breakerPermit: BreakerPermit): Permit | Out {
    const { registry, load, trials } = this.#deps;
    // A full connection is busy, not failing: nothing is recorded against it.
    if (!load.tryAcquire(target.connectionName, target.connection.max_in_flight)) {
      deployment.breaker.record(breakerPermit, 'neutral');
      if (breakerPermit.trial) trials?.release(deployment);
      return out('busy', this.#now());
    }
    registry.dispatched(deployment);
    return new DeploymentPermit(this.#deps, deployment, route, breakerPermit);
  }

  coolingUntilMs(target: ResolvedTarget): number | undefined {
    return this.#deps.cooling.coolingUntil(keyOf(target));
  }

  outCauseOf(target: ResolvedTarget): OutCause {
    const deployment = this.#deps.registry.find(keyOf(target));
    const structural = deployment?.structural.state === 'structural' ? deployment.structural.cause : undefined;
    return { structural, ejectedBy: deployment?.breaker.ejectedBy };
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
  readonly #route: ResolvedRoute;
  readonly #breakerPermit: BreakerPermit;
  #streamedInputTokens: number | undefined;
  #reasoning = false;
  /** The attempt's first-token timeout was a guess: a cut there counts for nothing against the deployment. */
  #guessedTimeout = false;

  constructor(deps: LocalHealthDoorDeps, deployment: DeploymentHealth, route: ResolvedRoute, breakerPermit: BreakerPermit) {
    this.#deps = deps;
    this.#deployment = deployment;
    this.#route = route;
    this.#breakerPermit = breakerPermit;
  }

  observeHeaders(headers: ResponseHeaders): void {
    this.#deps.registry.observeHeaders(this.#deployment, headers);
  }

  firstTokenTimeout(timeouts: TimeoutsConfig, attempt: FirstTokenAttempt): FirstTokenTimeout {
    this.#streamedInputTokens = attempt.streamedInputTokens;
    this.#reasoning = attempt.reasoning;
    // Searching the evidence and reading the deployment's own samples sort them: only `auto` needs either.
    const auto = timeouts.first_token_ms === 'auto';
    const evidence = auto
      ? firstTokenEvidenceFor(
          this.#deps,
          this.#deployment,
          () => this.#route.targets.map((target) => ({ connection: target.connectionName, model: target.routedModel })),
          attempt.reasoning,
        )
      : undefined;
    const shown = auto ? this.#deps.latency.recentFirstTokens(this.#deployment.key, attempt.reasoning) : NO_FIRST_TOKENS;
    const timeout = firstTokenTimeout(timeouts, evidence, attempt, shown);
    this.#guessedTimeout = timeout.guess;
    return timeout;
  }

  hedgeAfterMs(hedge: HedgeConfig, attempt: { streamed: boolean; reasoning: boolean }): number | undefined {
    // A reasoning request is hedged by reasoning samples only, like its timeout.
    const recent = hedge.after_ms === 'auto' ? this.#deps.latency.recentFirstTokens(this.#deployment.key, attempt.reasoning) : NO_FIRST_TOKENS;
    return hedgeDelayMs(hedge.after_ms, recent, attempt.streamed);
  }

  settle(record: AttemptRecord): void {
    const { registry, cooling, load, latency } = this.#deps;
    const deployment = this.#deployment;
    if (record.kind === 'ok') latency.observe(deployment.key, { latencyMs: record.firstTokenMs ?? record.latencyMs, firstToken: this.#firstTokenSample(record), reasoning: this.#reasoning });
    const cut = this.#cutSilence(record);
    if (cut) latency.observeSilence(deployment.key, cut, this.#reasoning);
    load.release(deployment.connection);
    // A guess that proved short is the gateway's mistake, not the deployment's failure: it counts for nothing.
    const guessedWrong = cut !== undefined && this.#guessedTimeout;
    if (guessedWrong) deployment.breaker.record(this.#breakerPermit, 'neutral');
    else registry.settled(deployment, this.#breakerPermit, record.kind, record.message);
    if (this.#breakerPermit.trial && (guessedWrong || breakerOutcomeOf(record.kind) === 'neutral')) this.#deps.trials?.release(deployment);
    if (record.kind !== 'ok' && FAILURE_POLICY[record.kind].cools) cooling.cool(deployment.key, coolingCauseOf(record));
  }

  /** A stream cut at a learned first-token timeout, as a sample: silent at least that long. */
  #cutSilence(record: AttemptRecord): FirstTokenSample | undefined {
    if (record.kind !== 'timeout' || record.errorType !== 'first_token' || this.#streamedInputTokens === undefined) return undefined;
    if (record.firstTokenSource === undefined || record.firstTokenSource === 'configured' || record.firstTokenTimeoutMs === undefined) return undefined;
    return { firstTokenMs: record.firstTokenTimeoutMs, inputTokens: this.#streamedInputTokens };
  }

  /** A stream's first-token time from the send, when its first-token clock started: connecting is not the provider's answer time. */
  #firstTokenSample(record: AttemptRecord): FirstTokenSample | undefined {
    if (this.#streamedInputTokens === undefined || record.firstTokenMs === undefined) return undefined;
    return { firstTokenMs: record.firstTokenMs - (record.sentMs ?? 0), inputTokens: this.#streamedInputTokens };
  }
}

function coolingCauseOf(record: AttemptRecord): CoolingCause {
  return { kind: record.kind, httpStatus: record.httpStatus, retryAfterMs: record.retryAfterMs };
}

function out(reason: OutReason, untilMs: number): Out {
  return { out: true, reason, untilMs };
}

function keyOf(target: ResolvedTarget): string {
  return deploymentKey(target.connectionName, target.routedModel);
}
