import { DEFAULT_ROUTE_HEALTH, type Config } from '../config/schema.js';
import { AllAttemptsFailedError } from '../errors/all-attempts-failed-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Permit } from '../health/breaker.js';
import type { ConnectionLoad } from '../health/connection-load.js';
import type { Cooling } from '../health/cooling.js';
import { deploymentKey } from '../core/deployment-key.js';
import type { DeploymentHealth, HealthState } from '../health/health-registry.js';
import { lookupModel } from '../metering/model-catalog.js';
import type { ProviderAdapter, UpstreamFailure } from '../providers/spec.js';
import type { LatencyTracker } from '../routing/latency-tracker.js';
import { planTargets } from '../routing/plan-targets.js';
import type { ResolvedRoute, ResolvedTarget } from '../routing/resolve-route.js';
import type { Metrics } from '../telemetry/metrics.js';
import type { Transport } from '../transport/send-upstream.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import { backoffDelayMs } from './backoff.js';
import type { Cancellation } from '../core/cancellation.js';
import { FAILURE_POLICY, ruleFor } from '../core/failure-policy.js';
import type { RetryBudget, RetryBudgets } from './retry-budget.js';
import { runAttempt, type AttemptOutcome, type Operation } from './run-attempt.js';
import { sleep } from './sleep.js';

/** An attempt that cannot get this much time is not started: it could not finish. */
export const MIN_ATTEMPT_MS = 50;

/** What a caller refused for load is told to wait: long enough for in-flight work to drain a little. */
export const OVERLOADED_RETRY_AFTER_MS = 1_000;

export interface EngineDeps {
  config(): Config;
  transport: Transport;
  adapterFor(target: ResolvedTarget): ProviderAdapter;
  baseUrlFor(target: ResolvedTarget): string;
  cooling: Cooling;
  load: ConnectionLoad;
  health: HealthState;
  retryBudgets: RetryBudgets;
  metrics: Metrics;
  /** Recent latency per deployment, for `least_latency` routes. */
  latency: LatencyTracker;
}

/** One caller request's trip through a route, whatever its kind (the operation says that). */
export interface RouteCall {
  route: ResolvedRoute;
  /** Aborts when the caller goes away. */
  caller: Cancellation;
  requestStartedAtMs: number;
  deadlineAtMs: number;
  /** Time the loop spent waiting on purpose (backoff, a short Retry-After): not gateway overhead. */
  waited: { ms: number };
  /** Sent as `Idempotency-Key` on every attempt, so a provider can tell a resend from a new request. */
  upstreamIdempotencyKey?: string;
}

export interface Served<Answer> {
  answer: Answer;
  served: ResolvedTarget;
  attempts: AttemptRecord[];
}

/** Why a target was passed over without an attempt. */
type Skip = { target: ResolvedTarget; deployment: DeploymentHealth; outUntilMs: number };

/** What trying one target came to: an answer, a reason to stop the whole request, or move on. */
type TargetResult<Answer> = { type: 'served'; outcome: Served<Answer> } | { type: 'stop' } | { type: 'next' };

/**
 * The attempt loop (docs/lifecycle.md, docs/health.md). Plans the route's targets — cooling, ejected, structurally
 * down and busy ones are skipped — and tries them in order: a same-target retry only for kinds
 * whose rule is `retry`, with backoff and only while the route's retry budget allows; `failover`
 * moves on; `stop` ends. When every target was out, the one whose ejection ends soonest is tried
 * anyway: a breaker in front of the only backend must not turn a partial failure into a total
 * one. Returns at the first success (a stream: at its commit point); otherwise throws
 * `AllAttemptsFailedError` with every attempt.
 */
export async function runRoute<Answer>(call: RouteCall, operation: Operation<Answer>, deps: EngineDeps): Promise<Served<Answer>> {
  const { route } = call;
  const loop = new AttemptLoop(call, operation, deps);
  const planned = planTargets(route.targets, route.policy.strategy, {
    latencyOf: (target) => deps.latency.estimate(deploymentKey(target.connectionName, target.routedModel)),
    random: Math.random,
  });
  const capable = operation.accepts ? planned.filter((target) => operation.accepts!(deps.adapterFor(target))) : planned;
  if (capable.length === 0) {
    throw new GatewayError(`No target of model '${route.name}' serves ${operation.name}.`, {
      status: 400,
      code: 'model_not_supported',
      type: 'invalid_request_error',
      param: 'model',
    });
  }
  const targets = capable.filter((target) => deps.cooling.coolingUntil(deploymentKey(target.connectionName, target.routedModel)) === undefined);
  const skipped: Skip[] = [];

  for (const [index, target] of targets.entries()) {
    if (!loop.acceptsContext(target)) continue;
    const deployment = loop.deploymentOf(target);
    const result = await loop.tryTarget(target, deployment, { rest: targets.slice(index + 1), forced: false, onOut: (outUntilMs) => skipped.push({ target, deployment, outUntilMs }) });
    if (result.type === 'served') return result.outcome;
    if (result.type === 'stop') break;
  }
  if (loop.attempts.length === 0 && skipped.length > 0 && !call.caller.aborted) {
    const lastResort = skipped.reduce((soonest, skip) => (skip.outUntilMs < soonest.outUntilMs ? skip : soonest));
    const result = await loop.tryTarget(lastResort.target, lastResort.deployment, { rest: [], forced: true, onOut: () => undefined });
    if (result.type === 'served') return result.outcome;
  }
  if (loop.attempts.length === 0 && loop.skippedBusy) {
    throw new GatewayError('Every target of this route is at its in-flight limit; try again shortly.', {
      status: 503,
      code: 'overloaded',
      type: 'server_error',
      retryAfterMs: OVERLOADED_RETRY_AFTER_MS,
    });
  }
  throw new AllAttemptsFailedError(loop.attempts, coolingEndsInMs(route, deps.cooling));
}

/** The state of one request's trip through its targets. */
class AttemptLoop<Answer> {
  readonly attempts: AttemptRecord[] = [];
  skippedBusy = false;
  readonly #call: RouteCall;
  readonly #operation: Operation<Answer>;
  readonly #deps: EngineDeps;
  readonly #budget: RetryBudget;
  /** Once a target rejects the input as too long, only targets known to take more may follow. */
  #contextLimit: number | undefined;
  #previous: ResolvedTarget | undefined;

  constructor(call: RouteCall, operation: Operation<Answer>, deps: EngineDeps) {
    this.#call = call;
    this.#operation = operation;
    this.#deps = deps;
    this.#budget = deps.retryBudgets.for(routeLabel(call.route), call.route.policy.retry_budget);
  }

  acceptsContext(target: ResolvedTarget): boolean {
    if (this.#contextLimit === undefined) return true;
    const window = contextWindowOf(target);
    return window === undefined || window > this.#contextLimit;
  }

  deploymentOf(target: ResolvedTarget): DeploymentHealth {
    return this.#deps.health.deployment(
      target.connectionName,
      target.routedModel,
      this.#call.route.policy.health ?? DEFAULT_ROUTE_HEALTH,
      this.#deps.config().health,
    );
  }

  /**
   * Attempts one target, with its same-target retries. `forced` is the last resort: the target
   * is tried although its breaker or a structural fault has it out. `onOut` hears when the
   * target is out (with when that ends) and so was not attempted.
   */
  async tryTarget(
    target: ResolvedTarget,
    deployment: DeploymentHealth,
    options: { rest: readonly ResolvedTarget[]; forced: boolean; onOut: (outUntilMs: number) => void },
  ): Promise<TargetResult<Answer>> {
    const { policy } = this.#call.route;
    let waitedForRetryAfter = false;
    for (let retry = 0; ; retry++) {
      if (this.#call.caller.aborted) return { type: 'stop' };
      const remainingMs = this.#call.deadlineAtMs - Date.now();
      if (remainingMs < MIN_ATTEMPT_MS) return { type: 'stop' };
      const permit = this.#admit(deployment, options);
      if (!permit) return { type: 'next' };
      // A full connection is busy, not failing: skip it without an attempt.
      if (!this.#deps.load.tryAcquire(target.connectionName, target.connection.max_in_flight)) {
        deployment.breaker.record(permit, 'neutral');
        this.skippedBusy = true;
        return { type: 'next' };
      }
      const outcome = await this.#attempt(target, deployment, permit, remainingMs);
      this.attempts.push(outcome.record);
      if (outcome.ok) {
        this.#budget.recordSuccess();
        return { type: 'served', outcome: { answer: outcome.answer, served: target, attempts: this.attempts } };
      }
      const { error } = outcome;
      if (error.kind === 'rate_limit' || error.kind === 'quota_exhausted') {
        this.#deps.cooling.cool(deployment.key, error.retryAfterMs);
      }
      const rule = ruleFor(error.kind, policy);
      if (error.kind === 'cancelled' || rule === 'stop') return { type: 'stop' };
      if (error.kind === 'context_length') {
        this.#contextLimit = contextWindowOf(target) ?? 0;
        return { type: 'next' };
      }
      if (!waitedForRetryAfter && shouldWaitForRetryAfter(error, options.rest, this.#call, policy.retry_after_wait_max_ms)) {
        waitedForRetryAfter = true;
        if (!(await this.#waitOnPurpose(error.retryAfterMs!))) return { type: 'stop' };
        continue;
      }
      if (rule !== 'retry' || !FAILURE_POLICY[error.kind].sameTargetRetry || retry >= policy.retries) return { type: 'next' };
      if (!this.#budget.tryRetry()) {
        this.#deps.metrics.retryBudgetExhausted.inc({ route: routeLabel(this.#call.route) });
        return { type: 'next' };
      }
      const delayMs = backoffDelayMs(retry, policy.backoff);
      if (Date.now() + delayMs + MIN_ATTEMPT_MS > this.#call.deadlineAtMs) return { type: 'next' };
      if (!(await this.#waitOnPurpose(delayMs))) return { type: 'stop' };
    }
  }

  #admit(deployment: DeploymentHealth, options: { forced: boolean; onOut: (outUntilMs: number) => void }): Permit | undefined {
    if (options.forced) return deployment.breaker.forceAdmit();
    if (deployment.structural.state === 'structural') {
      options.onOut(deployment.structural.nextProbeAtMs ?? Number.MAX_SAFE_INTEGER);
      return undefined;
    }
    const permit = deployment.breaker.admit();
    if (!permit) options.onOut(deployment.breaker.ejectedUntilMs ?? Date.now());
    return permit;
  }

  async #attempt(target: ResolvedTarget, deployment: DeploymentHealth, permit: Permit, remainingMs: number): Promise<AttemptOutcome<Answer>> {
    const { route } = this.#call;
    if (this.#previous !== undefined && this.#previous !== target) {
      this.#deps.metrics.failovers.inc({ from: label(this.#previous), to: label(target) });
    }
    this.#previous = target;
    this.#deps.metrics.deadlineRemaining.observe(remainingMs / 1000);
    this.#deps.health.dispatched(deployment);
    return runAttempt(
      {
        n: this.attempts.length + 1,
        target,
        adapter: this.#deps.adapterFor(target),
        baseUrl: this.#deps.baseUrlFor(target),
        timeouts: route.policy.timeouts,
        caller: this.#call.caller,
        deadlineAtMs: this.#call.deadlineAtMs,
        requestStartedAtMs: this.#call.requestStartedAtMs,
        transport: this.#deps.transport,
        idempotencyKey: this.#call.upstreamIdempotencyKey,
        onHeaders: (headers) => this.#deps.health.observeHeaders(deployment, headers),
        onSettled: (record) => {
          if (record.kind === 'ok') this.#deps.latency.observe(deployment.key, record.firstTokenMs ?? record.latencyMs);
          this.#deps.load.release(target.connectionName);
          this.#deps.health.settled(deployment, permit, record.kind, record.message);
        },
      },
      this.#operation,
    );
  }

  async #waitOnPurpose(ms: number): Promise<boolean> {
    const startedAtMs = Date.now();
    const completed = await sleep(ms, this.#call.caller);
    this.#call.waited.ms += Date.now() - startedAtMs;
    return completed;
  }
}

/**
 * A Retry-After is information about the target, not a reason to hold the caller — except when
 * nothing but a model change (or nothing) is left and the wait is short and fits the deadline.
 */
function shouldWaitForRetryAfter(error: UpstreamFailure, rest: readonly ResolvedTarget[], call: RouteCall, waitMaxMs: number): boolean {
  if (error.kind !== 'rate_limit' || error.retryAfterMs === undefined) return false;
  if (rest.some((target) => !target.modelChange)) return false;
  return error.retryAfterMs <= waitMaxMs && Date.now() + error.retryAfterMs + MIN_ATTEMPT_MS <= call.deadlineAtMs;
}

function contextWindowOf(target: ResolvedTarget): number | undefined {
  return target.config.context_window ?? lookupModel(target.routedModel)?.contextWindow;
}

function coolingEndsInMs(route: ResolvedRoute, cooling: Cooling): number | undefined {
  let earliest: number | undefined;
  for (const target of route.targets) {
    const untilMs = cooling.coolingUntil(deploymentKey(target.connectionName, target.routedModel));
    if (untilMs !== undefined && (earliest === undefined || untilMs < earliest)) earliest = untilMs;
  }
  return earliest === undefined ? undefined : Math.max(0, earliest - Date.now());
}

function label(target: ResolvedTarget): string {
  return deploymentKey(target.connectionName, target.routedModel);
}

/** Direct `connection/model` requests are labelled by connection, keeping label values bounded. */
export function routeLabel(route: ResolvedRoute): string {
  return route.direct ? `${route.targets[0]!.connectionName}/*` : route.name;
}
