import type { HedgeConfig, TimeoutsConfig } from '../config/schema.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import type { AttemptFailureKind } from '../core/failure-policy.js';
import type { ResponseHeaders } from '../providers/spec.js';
import type { FirstTokenAttempt, FirstTokenTimeout } from './first-token-timeout.js';
import type { ResolvedRoute, ResolvedTarget } from '../routing/resolve-route.js';
import type { DeploymentHealth } from './health-registry.js';

/** Why a target may not be tried now. */
export type OutReason = 'ejected' | 'cooling' | 'structural' | 'busy';

/** A target that may not be tried now, and until when (as far as is known). */
export interface Out {
  readonly out: true;
  readonly reason: OutReason;
  readonly untilMs: number;
}

/** Leave to send one attempt to one target; it must be settled exactly once. */
export interface Permit {
  readonly out: false;
  /** The attempt's response headers: rate-limit headers come on successes too. */
  observeHeaders(headers: ResponseHeaders): void;
  /**
   * The first-token timeout of this attempt and where it came from: the route's number, or what
   * `auto` makes of the nearest recent first-token times (the deployment's own, else borrowed).
   * If the attempt then streams to success, its first-token time joins the deployment's samples
   * with the request's size (and whether it reasoned).
   */
  firstTokenTimeout(timeouts: TimeoutsConfig, attempt: FirstTokenAttempt): FirstTokenTimeout;
  /**
   * How long this attempt may go without reaching its commit point before a hedge starts beside
   * it (`auto`: from the deployment's recent first-token times); undefined: no hedge.
   */
  hedgeAfterMs(hedge: HedgeConfig, attempt: { streamed: boolean; reasoning: boolean }): number | undefined;
  /** The attempt has ended (a stream: when it ended); its record says how. */
  settle(record: AttemptRecord): void;
}

export interface AdmitOptions {
  /**
   * Every target of the route was out and this one's time out ends soonest: it is let through
   * whatever its breaker or structural state says (never eject the last option). Load still applies.
   */
  lastResort?: boolean;
  /** A same-target retry the loop chose: the wait before it was the loop's answer to any cooling. */
  retry?: boolean;
}

/**
 * The attempt loop's one door to deployment health: which targets are open and in what order,
 * whether one may be tried now, and (through the permit) how each attempt ended. The breaker,
 * structural faults, cooling, load and latency live behind it, so the loop runs the same on state
 * kept in this process or shared between replicas. Every call answers from state at hand, with
 * one exception: across replicas, the half-open trial is claimed in the shared state, so that
 * one admit may wait for one bounded call.
 */
export interface HealthDoor {
  /** The route's targets in the order to try them (its strategy), without those cooling. */
  plan(route: ResolvedRoute): readonly ResolvedTarget[];
  admit(target: ResolvedTarget, route: ResolvedRoute, options?: AdmitOptions): Permit | Out | Promise<Permit | Out>;
  /** When the first of the route's targets stops cooling; undefined when none is cooling. */
  coolingEndsAtMs(route: ResolvedRoute): number | undefined;
  /** When this target stops cooling; undefined when it is not cooling. */
  coolingUntilMs(target: ResolvedTarget): number | undefined;
  /** What health knows of why the target is out. */
  outCauseOf(target: ResolvedTarget): OutCause;
}

/** Why a deployment is out, as far as health knows; each undefined when it does not apply or is not known. */
export interface OutCause {
  /** The cause of its structural fault (`quota_exhausted`, `credential`, `persistent_429`, …). */
  structural: string | undefined;
  /** The kind of the failure that ejected it. */
  ejectedBy: AttemptFailureKind | undefined;
}

/**
 * The half-open trial across replicas: whoever would send it claims it first, so the fleet sends
 * exactly one. Without replicas to agree with, every claim is granted at once.
 */
export interface TrialClaims {
  /** Whether this replica may go on to ask its breaker (false: another replica holds the trial). */
  claim(deployment: DeploymentHealth): boolean | Promise<boolean>;
  /** The claimed trial was not sent or ended neutral: another request, here or elsewhere, may claim it. */
  release(deployment: DeploymentHealth): void;
}
