import { isReasoningModel } from '../metering/model-catalog.js';
import { AllAttemptsFailedError } from '../errors/all-attempts-failed-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import { overloadedError } from '../errors/overloaded-error.js';
import type { HealthDoor, Permit } from '../health/health-door.js';
import { lookupModel } from '../metering/model-catalog.js';
import type { ProviderAdapter, UpstreamFailure } from '../providers/spec.js';
import { boundFirst } from '../routing/plan-targets.js';
import type { ResolvedRoute, ResolvedTarget } from '../routing/resolve-route.js';
import type { Transport } from '../transport/send-upstream.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import type { SkippedTarget, SkipReason } from '../core/skipped-target.js';
import { backoffDelayMs } from './backoff.js';
import { ANSWERED_ELSEWHERE, Cancellation } from '../core/cancellation.js';
import { estimatedUsage } from '../metering/estimate-tokens.js';
import { FAILURE_POLICY, ruleFor } from '../core/failure-policy.js';
import { raceWithHedges, type RunningAttempt } from './hedge-race.js';
import type { RetryBudget, RetryBudgets } from './retry-budget.js';
import { runAttempt, type AttemptOutcome, type Operation } from './run-attempt.js';
import { sleep } from './sleep.js';

/** An attempt that cannot get this much time is not started: it could not finish. */
export const MIN_ATTEMPT_MS = 50;

export interface EngineDeps {
  /** Whether a target may be tried, and how each attempt ended. */
  health: HealthDoor;
  transport: Transport;
  adapterFor(target: ResolvedTarget): ProviderAdapter;
  baseUrlFor(target: ResolvedTarget): string;
  retryBudgets: RetryBudgets;
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
  /**
   * Targets that fail as `server_error` inside the gateway, once each, without a provider or
   * health hearing of it: the fallback drill's chain walk proves what follows them answers.
   */
  forcedFailures?: ReadonlySet<ResolvedTarget>;
  /** The target the caller's session is bound to (session affinity): tried first while the plan has it. */
  boundTarget?: ResolvedTarget | undefined;
}

/** What a forced failure's attempt says, so its record cannot be mistaken for a provider's error. */
export const FORCED_FAILURE_MESSAGE = 'failed on purpose by the fallback drill; no provider was called';

export interface Served<Answer> {
  answer: Answer;
  served: ResolvedTarget;
  attempts: AttemptRecord[];
  /** Planned targets passed over without an attempt; undefined when none were. */
  skipped?: SkippedTarget[] | undefined;
}

/** A planned target passed over without an attempt; ejected and structural ones are a last resort's candidates. */
type Skip = { target: ResolvedTarget; reason: SkipReason; untilMs: number | undefined; cause: string | undefined };

/** An attempt that has ended (for an answer: at its commit point), and the target it went to. */
type Ended<Answer> = { target: ResolvedTarget; outcome: AttemptOutcome<Answer> };

/** What trying one target came to: an answer, a reason to stop the whole request, or move on. */
type TargetResult<Answer> = { type: 'served'; outcome: Served<Answer> } | { type: 'stop' } | { type: 'next' };

/**
 * The attempt loop (docs/lifecycle.md, docs/health.md). Asks health for the route's targets in
 * order — cooling ones are left out — and tries them in turn, each only if health admits it
 * (ejected, structurally down, busy and newly cooling ones are passed over): a same-target retry
 * only for kinds whose rule is `retry`, with backoff and only while the route's retry budget
 * allows; `failover` moves on; `stop` ends. When every target was ejected or structurally out,
 * the one whose time out ends soonest is tried anyway: a breaker in front of the only backend
 * must not turn a partial failure into a total one. Returns at the first success (a stream: at
 * its commit point); otherwise throws `AllAttemptsFailedError` with every attempt.
 */
export async function runRoute<Answer>(call: RouteCall, operation: Operation<Answer>, deps: EngineDeps): Promise<Served<Answer>> {
  const { route } = call;
  const accepts = (target: ResolvedTarget) => operation.accepts === undefined || operation.accepts(deps.adapterFor(target));
  if (!route.targets.some(accepts)) {
    throw new GatewayError(`No target of model '${route.name}' serves ${operation.name}.`, {
      status: 400,
      code: 'model_not_supported',
      type: 'invalid_request_error',
      param: 'model',
    });
  }
  const loop = new AttemptLoop(call, operation, deps);
  const planned = boundFirst(deps.health.plan(route), call.boundTarget);
  // Only cooling shortens the plan: the targets it left out are named in the record.
  if (planned.length < route.targets.length) {
    for (const target of route.targets) if (!planned.includes(target) && accepts(target)) loop.skip(target, 'cooling', deps.health.coolingUntilMs(target));
  }
  const targets = planned.filter(accepts);

  for (const [index, target] of targets.entries()) {
    if (loop.hedgedTo(target)) continue;
    if (!loop.acceptsContext(target)) {
      loop.skip(target, 'context_window', undefined);
      continue;
    }
    const result = await loop.tryTarget(target, { rest: targets.slice(index + 1), lastResort: false });
    if (result.type === 'served') return result.outcome;
    if (result.type === 'stop') break;
  }
  const lastResort = loop.attempts.length === 0 && !call.caller.aborted ? loop.lastResortCandidate() : undefined;
  if (lastResort) {
    loop.unskip(lastResort);
    const result = await loop.tryTarget(lastResort.target, { rest: [], lastResort: true });
    if (result.type === 'served') return result.outcome;
  }
  if (loop.attempts.length === 0 && loop.skippedBusy) {
    throw overloadedError('Every target of this route is at its in-flight limit; try again shortly.');
  }
  const coolingEndsAtMs = deps.health.coolingEndsAtMs(route);
  throw new AllAttemptsFailedError(loop.attempts, coolingEndsAtMs === undefined ? undefined : Math.max(0, coolingEndsAtMs - Date.now()), loop.skippedTargets());
}

/** The state of one request's trip through its targets. */
class AttemptLoop<Answer> {
  readonly attempts: AttemptRecord[] = [];
  skippedBusy = false;
  /** Allocated at the first skip: most requests skip nothing. */
  #skipped: Skip[] | undefined;
  readonly #call: RouteCall;
  readonly #operation: Operation<Answer>;
  readonly #deps: EngineDeps;
  readonly #budget: RetryBudget;
  /** Once a target rejects the input as too long, only targets known to take more may follow. */
  #contextLimit: number | undefined;
  #attemptsStarted = 0;
  /** Targets a hedge went to: the plan walk does not try them again. */
  readonly #hedged = new Set<ResolvedTarget>();

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

  hedgedTo(target: ResolvedTarget): boolean {
    return this.#hedged.has(target);
  }

  skip(target: ResolvedTarget, reason: SkipReason, untilMs: number | undefined): void {
    const cause = reason === 'busy' || reason === 'context_window' ? undefined : this.#deps.health.structuralCauseOf(target);
    (this.#skipped ??= []).push({ target, reason, untilMs, cause });
  }

  /** The target tried as a last resort was attempted after all: it is no longer a skip. */
  unskip(skip: Skip): void {
    this.#skipped = this.#skipped?.filter((other) => other !== skip);
  }

  /** Of the ejected and structurally out targets, the one whose time out ends soonest. */
  lastResortCandidate(): Skip | undefined {
    let soonest: Skip | undefined;
    for (const skip of this.#skipped ?? []) {
      if (skip.reason !== 'ejected' && skip.reason !== 'structural') continue;
      if (soonest === undefined || skip.untilMs! < soonest.untilMs!) soonest = skip;
    }
    return soonest;
  }

  skippedTargets(): SkippedTarget[] | undefined {
    if (this.#skipped === undefined || this.#skipped.length === 0) return undefined;
    return this.#skipped.map(({ target, reason, untilMs, cause }) => ({
      connection: target.connectionName,
      model: target.routedModel,
      reason,
      ...(cause === undefined ? {} : { cause }),
      // A structural fault with no probe due is out until further notice.
      ...(untilMs === undefined || untilMs === Number.MAX_SAFE_INTEGER ? {} : { untilMs }),
    }));
  }

  /**
   * Attempts one target, with its same-target retries. `lastResort`: the target is tried although
   * its breaker or a structural fault has it out. A target health has out before its first
   * attempt is noted as skipped, with why and until when. A hedge that outlives the
   * attempt it was started beside is the loop's attempt from then on: its target's retries follow.
   */
  async tryTarget(
    target: ResolvedTarget,
    options: { rest: readonly ResolvedTarget[]; lastResort: boolean },
  ): Promise<TargetResult<Answer>> {
    const { policy } = this.#call.route;
    if (this.#call.forcedFailures?.has(target)) return this.#forcedFailure(target);
    let waitedForRetryAfter = false;
    let current = target;
    let attempted = false;
    for (let retry = 0; ; retry++) {
      if (this.#call.caller.aborted) return { type: 'stop' };
      const remainingMs = this.#call.deadlineAtMs - Date.now();
      if (remainingMs < MIN_ATTEMPT_MS) return { type: 'stop' };
      const permit = await this.#deps.health.admit(current, this.#call.route, { lastResort: options.lastResort && current === target, retry: retry > 0 });
      if (permit.out) {
        if (permit.reason === 'busy') this.skippedBusy = true;
        // Busy says nothing of when it ends; its `untilMs` is only the moment of asking.
        if (!attempted && !options.lastResort) this.skip(current, permit.reason, permit.reason === 'busy' ? undefined : permit.untilMs);
        return { type: 'next' };
      }
      attempted = true;
      const ended = await this.#attemptWithHedges(current, permit, options.rest);
      const { outcome } = ended;
      if (outcome.ok) {
        this.#budget.recordSuccess();
        return { type: 'served', outcome: { answer: outcome.answer, served: ended.target, attempts: this.attempts, skipped: this.skippedTargets() } };
      }
      if (ended.target !== current) {
        current = ended.target;
        retry = 0;
        waitedForRetryAfter = false;
      }
      const rest = this.#notHedged(options.rest);
      const { error } = outcome;
      const kind = FAILURE_POLICY[error.kind];
      const rule = ruleFor(error.kind, policy);
      if (rule === 'stop') return { type: 'stop' };
      if (kind.narrowsToLargerContext) {
        this.#contextLimit = contextWindowOf(current) ?? 0;
        return { type: 'next' };
      }
      if (!waitedForRetryAfter && shouldWaitForRetryAfter(error, rest, this.#call, policy.retry_after_wait_max_ms)) {
        waitedForRetryAfter = true;
        if (!(await this.#waitOnPurpose(error.retryAfterMs!))) return { type: 'stop' };
        continue;
      }
      if (rule !== 'retry' || !kind.sameTargetRetry || retry >= policy.retries) return { type: 'next' };
      if (!(await this.#budget.tryRetry())) return { type: 'next' };
      const delayMs = backoffDelayMs(retry, policy.backoff);
      if (Date.now() + delayMs + MIN_ATTEMPT_MS > this.#call.deadlineAtMs) return { type: 'next' };
      if (!(await this.#waitOnPurpose(delayMs))) return { type: 'stop' };
    }
  }

  /** A same-target retry of a forced failure would prove nothing, so the route's rule decides at once. */
  #forcedFailure(target: ResolvedTarget): TargetResult<Answer> {
    this.attempts.push({
      n: ++this.#attemptsStarted,
      connection: target.connectionName,
      provider: target.connection.provider,
      model: target.routedModel,
      kind: 'server_error',
      errorType: 'forced_failure',
      message: FORCED_FAILURE_MESSAGE,
      startedMs: Date.now() - this.#call.requestStartedAtMs,
      latencyMs: 0,
      committed: false,
      malformedEvents: 0,
    });
    return ruleFor('server_error', this.#call.route.policy) === 'stop' ? { type: 'stop' } : { type: 'next' };
  }

  /** The plan's targets not yet taken by a hedge. */
  #notHedged(targets: readonly ResolvedTarget[]): readonly ResolvedTarget[] {
    return this.#hedged.size === 0 ? targets : targets.filter((target) => !this.#hedged.has(target));
  }

  /**
   * One attempt at `target`, raced against hedges when the route has `hedge` and the permit gives
   * a delay (docs/lifecycle.md): the first to reach its commit point answers. Otherwise (and
   * always for the plan's last target, which has nothing to hedge with) the attempt alone.
   */
  async #attemptWithHedges(target: ResolvedTarget, permit: Permit, plannedRest: readonly ResolvedTarget[]): Promise<Ended<Answer>> {
    const { policy } = this.#call.route;
    const lastOption = this.#notHedged(plannedRest).length === 0;
    const afterMs = policy.hedge === undefined || lastOption ? undefined : permit.hedgeAfterMs(policy.hedge, { streamed: this.#operation.streamedInputTokens !== undefined, reasoning: this.#reasons(target) });
    if (policy.hedge === undefined || afterMs === undefined) {
      const outcome = await this.#attempt(target, permit, { lastOption, hedge: false, caller: this.#call.caller });
      this.#keep(outcome.record);
      return { target, outcome };
    }
    const end = await raceWithHedges(this.#start(target, permit, { lastOption, hedge: false }), {
      afterMs,
      maxExtra: policy.hedge.max_extra,
      startHedge: () => this.#startHedge(plannedRest, afterMs),
      stops: (error) => ruleFor(error.kind, policy) === 'stop',
    });
    return { target: end.attempt.target, outcome: end.outcome };
  }

  /**
   * The next planned target that health admits, started as a hedge — if the retry budget has a
   * token for it and the deadline leaves it at least the time its original was given (a hedge
   * with less could hardly get further than the original did).
   */
  async #startHedge(plannedRest: readonly ResolvedTarget[], afterMs: number): Promise<RunningAttempt<Answer> | undefined> {
    if (this.#call.caller.aborted || this.#call.deadlineAtMs - Date.now() < Math.max(MIN_ATTEMPT_MS, afterMs)) return undefined;
    const candidates = this.#notHedged(plannedRest).filter((target) => this.acceptsContext(target) && !this.#call.forcedFailures?.has(target));
    if (candidates.length === 0 || !(await this.#budget.tryRetry())) return undefined;
    for (const [index, candidate] of candidates.entries()) {
      const permit = await this.#deps.health.admit(candidate, this.#call.route);
      if (permit.out) continue;
      this.#hedged.add(candidate);
      return this.#start(candidate, permit, { lastOption: index === candidates.length - 1, hedge: true });
    }
    return undefined;
  }

  /** An attempt of a race: it follows the caller through a link of its own, so that it can be cancelled alone. */
  #start(target: ResolvedTarget, permit: Permit, plan: { lastOption: boolean; hedge: boolean }): RunningAttempt<Answer> {
    const caller = new Cancellation();
    this.#call.caller.onAbort((reason) => caller.abort(reason));
    if (this.#call.caller.aborted) caller.abort(this.#call.caller.reason);
    const outcome = this.#attempt(target, permit, { ...plan, caller }).then((settled) => {
      this.#keep(settled.record);
      return settled;
    });
    return {
      target,
      startedAtMs: Date.now(),
      outcome,
      cancel: async () => {
        caller.abort(ANSWERED_ELSEWHERE);
        await this.#letGo(await outcome);
      },
    };
  }

  /**
   * A race's loser, aborted: never forwarded, and billed for what the provider had of it — once
   * sent, at least the input it read (its usage estimated, as for an interrupted stream).
   */
  async #letGo(outcome: AttemptOutcome<Answer>): Promise<void> {
    const { record } = outcome;
    if (outcome.ok) {
      // It reached its commit point as the winner did; its answer is dropped unread.
      await this.#operation.discard?.(outcome.answer);
      Object.assign(record, { kind: 'cancelled', committed: false, message: ANSWERED_ELSEWHERE.message });
    }
    if (record.kind === 'cancelled' && record.sentMs !== undefined && record.usage === undefined && this.#operation.estimateInputTokens) {
      record.usage = estimatedUsage(undefined, 0, this.#operation.estimateInputTokens);
    }
  }

  /** Whether this attempt's first token comes after thinking: the request asks for it, or the model reasons by default. */
  #reasons(target: ResolvedTarget): boolean {
    return this.#operation.asksForReasoning === true || isReasoningModel(target.routedModel);
  }

  /** Attempts end out of order in a race; the record lists them in the order they started. */
  #keep(record: AttemptRecord): void {
    this.attempts.push(record);
    if (this.attempts.length > 1 && this.attempts.at(-2)!.n > record.n) this.attempts.sort((a, b) => a.n - b.n);
  }

  #attempt(target: ResolvedTarget, permit: Permit, plan: { lastOption: boolean; hedge: boolean; caller: Cancellation }): Promise<AttemptOutcome<Answer>> {
    const { timeouts } = this.#call.route.policy;
    // The deadline still clips it: the attempt's own deadline timer fires first when it is nearer.
    const firstToken = permit.firstTokenTimeout(timeouts, { streamedInputTokens: this.#operation.streamedInputTokens, lastOption: plan.lastOption, reasoning: this.#reasons(target) });
    return runAttempt(
      {
        n: ++this.#attemptsStarted,
        hedge: plan.hedge,
        target,
        adapter: this.#deps.adapterFor(target),
        baseUrl: this.#deps.baseUrlFor(target),
        timeouts: { connect_ms: timeouts.connect_ms, first_token_ms: firstToken.timeoutMs, idle_ms: timeouts.idle_ms },
        firstTokenSource: firstToken.source,
        caller: plan.caller,
        deadlineAtMs: this.#call.deadlineAtMs,
        requestStartedAtMs: this.#call.requestStartedAtMs,
        transport: this.#deps.transport,
        idempotencyKey: this.#call.upstreamIdempotencyKey,
        onHeaders: (headers) => permit.observeHeaders(headers),
        onSettled: (record) => permit.settle(record),
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
  if (!FAILURE_POLICY[error.kind].waitHelps || error.retryAfterMs === undefined) return false;
  if (rest.some((target) => !target.modelChange)) return false;
  return error.retryAfterMs <= waitMaxMs && Date.now() + error.retryAfterMs + MIN_ATTEMPT_MS <= call.deadlineAtMs;
}

function contextWindowOf(target: ResolvedTarget): number | undefined {
  return target.config.context_window ?? lookupModel(target.routedModel)?.contextWindow;
}

/** Direct `connection/model` requests are labelled by connection, keeping label values bounded. */
export function routeLabel(route: ResolvedRoute): string {
  return route.direct ? `${route.targets[0]!.connectionName}/*` : route.name;
}
