import { AllAttemptsFailedError } from '../errors/all-attempts-failed-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { ConnectionLoad } from '../health/connection-load.js';
import type { Cooling } from '../health/cooling.js';
import { deploymentKey } from '../health/deployment-key.js';
import { lookupModel } from '../metering/model-catalog.js';
import type { ChatRequest, ChatResult, ProviderAdapter, ProviderError, StreamEvent } from '../providers/spec.js';
import type { ResolvedRoute, ResolvedTarget } from '../routing/resolve-route.js';
import type { Metrics } from '../telemetry/metrics.js';
import type { Transport } from '../transport/send-upstream.js';
import type { AttemptRecord } from './attempt-record.js';
import { backoffDelayMs } from './backoff.js';
import { ruleFor } from './failure-policy.js';
import type { RetryBudgets } from './retry-budget.js';
import { runAttempt } from './run-attempt.js';
import { sleep } from './sleep.js';

/** An attempt that cannot get this much time is not started: it could not finish. */
export const MIN_ATTEMPT_MS = 50;

/** What a caller refused for load is told to wait: long enough for in-flight work to drain a little. */
export const OVERLOADED_RETRY_AFTER_MS = 1_000;

export interface EngineDeps {
  transport: Transport;
  adapterFor(target: ResolvedTarget): ProviderAdapter;
  baseUrlFor(target: ResolvedTarget): string;
  cooling: Cooling;
  load: ConnectionLoad;
  retryBudgets: RetryBudgets;
  metrics: Metrics;
}

export interface ChatCall {
  request: ChatRequest;
  route: ResolvedRoute;
  /** Aborts when the caller goes away. */
  callerSignal: AbortSignal;
  requestStartedAtMs: number;
  deadlineAtMs: number;
  /** Time the loop spent waiting on purpose (backoff, a short Retry-After): not gateway overhead. */
  waited: { ms: number };
}

export type ChatOutcome =
  | { type: 'result'; result: ChatResult; served: ResolvedTarget; attempts: AttemptRecord[] }
  | { type: 'stream'; events: AsyncIterable<StreamEvent>; served: ResolvedTarget; attempts: AttemptRecord[] };

/**
 * The attempt loop (SPEC §6). Plans the route's targets (cooling ones skipped), then tries them
 * in order: a same-target retry only for kinds whose rule is `retry`, with backoff and only while
 * the route's retry budget allows; `failover` moves on; `stop` ends. Returns at the first success
 * (for streams: the commit point); otherwise throws `AllAttemptsFailedError` with every attempt.
 */
export async function runChat(call: ChatCall, deps: EngineDeps): Promise<ChatOutcome> {
  const { route } = call;
  const { policy } = route;
  const attempts: AttemptRecord[] = [];
  const budget = deps.retryBudgets.for(routeLabel(route), policy.retry_budget);
  const targets = route.targets.filter((target) => deps.cooling.coolingUntil(deploymentKey(target.connectionName, target.routedModel)) === undefined);
  /** Once a target rejects the input as too long, only targets known to take more may follow. */
  let contextLimit: number | undefined;
  let previous: ResolvedTarget | undefined;
  let skippedBusy = false;

  targets: for (const [index, target] of targets.entries()) {
    if (contextLimit !== undefined && !(contextWindowOf(target) === undefined || contextWindowOf(target)! > contextLimit)) continue;
    let waitedForRetryAfter = false;
    for (let retry = 0; ; retry++) {
      if (call.callerSignal.aborted) break targets;
      const remainingMs = call.deadlineAtMs - Date.now();
      if (remainingMs < MIN_ATTEMPT_MS) break targets;
      // A full connection is busy, not failing: skip it without an attempt.
      if (!deps.load.tryAcquire(target.connectionName, target.connection.max_in_flight)) {
        skippedBusy = true;
        continue targets;
      }
      if (previous !== undefined && previous !== target) {
        deps.metrics.failovers.inc({ from: label(previous), to: label(target) });
      }
      previous = target;
      deps.metrics.deadlineRemaining.observe(remainingMs / 1000);
      const outcome = await runAttempt({
        n: attempts.length + 1,
        target,
        adapter: deps.adapterFor(target),
        baseUrl: deps.baseUrlFor(target),
        request: call.request,
        timeouts: policy.timeouts,
        commit: policy.commit,
        callerSignal: call.callerSignal,
        deadlineAtMs: call.deadlineAtMs,
        requestStartedAtMs: call.requestStartedAtMs,
        transport: deps.transport,
        onSettled: () => deps.load.release(target.connectionName),
      });
      attempts.push(outcome.record);
      if (outcome.ok) {
        budget.recordSuccess();
        return 'result' in outcome
          ? { type: 'result', result: outcome.result, served: target, attempts }
          : { type: 'stream', events: outcome.events, served: target, attempts };
      }
      const { error } = outcome;
      if (error.kind === 'rate_limit' || error.kind === 'quota_exhausted') {
        deps.cooling.cool(deploymentKey(target.connectionName, target.routedModel), error.retryAfterMs);
      }
      const rule = ruleFor(error.kind, policy);
      if (error.kind === 'cancelled' || rule === 'stop') break targets;
      if (error.kind === 'context_length') {
        contextLimit = contextWindowOf(target) ?? 0;
        continue targets;
      }
      if (!waitedForRetryAfter && shouldWaitForRetryAfter(error, targets.slice(index + 1), call, policy.retry_after_wait_max_ms)) {
        waitedForRetryAfter = true;
        if (!(await waitOnPurpose(error.retryAfterMs!, call))) break targets;
        continue;
      }
      // A silent target stays silent: a timeout is never retried on the same target.
      if (rule !== 'retry' || error.kind === 'timeout' || retry >= policy.retries) continue targets;
      if (!budget.tryRetry()) {
        deps.metrics.retryBudgetExhausted.inc({ route: routeLabel(route) });
        continue targets;
      }
      const delayMs = backoffDelayMs(retry, policy.backoff);
      if (Date.now() + delayMs + MIN_ATTEMPT_MS > call.deadlineAtMs) continue targets;
      if (!(await waitOnPurpose(delayMs, call))) break targets;
    }
  }
  if (attempts.length === 0 && skippedBusy) {
    throw new GatewayError('Every target of this route is at its in-flight limit; try again shortly.', {
      status: 503,
      code: 'overloaded',
      type: 'server_error',
      retryAfterMs: OVERLOADED_RETRY_AFTER_MS,
    });
  }
  throw new AllAttemptsFailedError(attempts, coolingEndsInMs(route, deps.cooling));
}

/**
 * A Retry-After is information about the target, not a reason to hold the caller — except when
 * nothing but a model change (or nothing) is left and the wait is short and fits the deadline.
 */
function shouldWaitForRetryAfter(error: ProviderError, rest: readonly ResolvedTarget[], call: ChatCall, waitMaxMs: number): boolean {
  if (error.kind !== 'rate_limit' || error.retryAfterMs === undefined) return false;
  if (rest.some((target) => !target.modelChange)) return false;
  return error.retryAfterMs <= waitMaxMs && Date.now() + error.retryAfterMs + MIN_ATTEMPT_MS <= call.deadlineAtMs;
}

async function waitOnPurpose(ms: number, call: ChatCall): Promise<boolean> {
  const startedAtMs = Date.now();
  const completed = await sleep(ms, call.callerSignal);
  call.waited.ms += Date.now() - startedAtMs;
  return completed;
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
