import type { AttemptRecord } from '../core/attempt-record.js';
import { FAILURE_POLICY, ruleFor } from '../core/failure-policy.js';
import type { SkippedTarget, SkipReason } from '../core/skipped-target.js';
import type { Permit } from '../health/health-door.js';
import { isReasoningModel, lookupModel } from '../metering/model-catalog.js';
import { refusesThinkingSignature } from '../providers/shared/thinking-signature-refusal.js';
import type { UpstreamFailure } from '../providers/spec.js';
import type { ResolvedTarget } from '../routing/resolve-route.js';
import { backoffDelayMs } from './backoff.js';
import { MIN_ATTEMPT_MS } from './deadline.js';
import { Hedging, type AttemptPlan, type HedgedLoop } from './hedging.js';
import { lastResortCandidate, skippedTargetsOf, type Skip } from './planned-skips.js';
import type { RetryBudget } from './retry-budget.js';
import type { AttemptOutcome } from './attempt-context.js';
import { runAttempt, type Operation } from './run-attempt.js';
import type { EngineDeps, RouteCall, Served } from './route-call.js';
import { sleep } from './sleep.js';

/** What a forced failure's attempt says, so its record cannot be mistaken for a provider's error. */
export const FORCED_FAILURE_MESSAGE = 'failed on purpose by the fallback drill; no provider was called';

/** What trying one target came to: an answer, a reason to stop the whole request, or move on. */
type TargetResult<Answer> = { type: 'served'; outcome: Served<Answer> } | { type: 'stop' } | { type: 'next' };

/** The state of one request's trip through its targets (`runRoute` walks its plan with it). */
export class AttemptLoop<Answer> implements HedgedLoop<Answer> {
  readonly attempts: AttemptRecord[] = [];
  skippedBusy = false;
  /** Allocated at the first skip: most requests skip nothing. */
  #skipped: Skip[] | undefined;
  readonly #call: RouteCall;
  readonly #operation: Operation<Answer>;
  readonly #deps: EngineDeps;
  readonly #budget: RetryBudget;
  /** Made only for a route with `hedge`. */
  readonly #hedging: Hedging<Answer> | undefined;
  /** Once a target rejects the input as too long, only targets known to take more may follow. */
  #contextLimit: number | undefined;
  #attemptsStarted = 0;

  constructor(call: RouteCall, operation: Operation<Answer>, deps: EngineDeps, budget: RetryBudget) {
    this.#call = call;
    this.#operation = operation;
    this.#deps = deps;
    this.#budget = budget;
    const { hedge } = call.route.policy;
    this.#hedging = hedge === undefined ? undefined : new Hedging(hedge, call, this, { health: deps.health, budget, operation });
  }

  acceptsContext(target: ResolvedTarget): boolean {
    if (this.#contextLimit === undefined) return true;
    const window = contextWindowOf(target);
    return window === undefined || window > this.#contextLimit;
  }

  mayHedgeTo(target: ResolvedTarget): boolean {
    return this.acceptsContext(target) && !this.#call.forcedFailures?.has(target);
  }

  hedgedTo(target: ResolvedTarget): boolean {
    return this.#hedging?.took(target) ?? false;
  }

  skip(target: ResolvedTarget, reason: SkipReason, untilMs: number | undefined): void {
    const cause = reason === 'busy' || reason === 'context_window' ? undefined : this.#deps.health.outCauseOf(target);
    (this.#skipped ??= []).push({ target, reason, untilMs, cause });
  }

  /** The target tried as a last resort was attempted after all: it is no longer a skip. */
  unskip(skip: Skip): void {
    this.#skipped = this.#skipped?.filter((other) => other !== skip);
  }

  lastResortCandidate(): Skip | undefined {
    return this.#skipped === undefined ? undefined : lastResortCandidate(this.#skipped);
  }

  skippedTargets(): SkippedTarget[] | undefined {
    return skippedTargetsOf(this.#skipped);
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
    /** Once the target has refused a thinking block another home signed: the request without them, for its attempts from then on. */
    let withoutThinking: Operation<Answer> | undefined;
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
      // Raced against hedges when hedging gives the attempt a delay (docs/lifecycle.md); otherwise
      // alone: always as the plan's last option, which has nothing to hedge with, and without the
      // thinking blocks, where a hedge would take the request elsewhere (recorded as `thinking_dropped`).
      const lastOption = withoutThinking !== undefined || this.#untaken(options.rest).length === 0;
      const afterMs = lastOption ? undefined : this.#hedging?.delayFor(permit, this.#reasons(current));
      let outcome: AttemptOutcome<Answer>;
      if (afterMs === undefined) outcome = await this.attempt(current, permit, { lastOption, hedge: false, caller: this.#call.caller }, withoutThinking);
      else {
        const ended = await this.#hedging!.race(current, permit, options.rest, afterMs);
        outcome = ended.outcome;
        if (ended.target !== current) {
          current = ended.target;
          retry = 0;
          waitedForRetryAfter = false;
        }
      }
      if (outcome.ok) {
        this.#budget.recordSuccess();
        return { type: 'served', outcome: { answer: outcome.answer, served: current, attempts: this.attempts, skipped: this.skippedTargets() } };
      }
      const rest = this.#untaken(options.rest);
      const { error } = outcome;
      if (withoutThinking === undefined && refusesThinkingSignature(error)) {
        withoutThinking = this.#operation.withoutThinking?.();
        // The same model, asked again at once without what it could not verify: no wait, no retry budget.
        if (withoutThinking !== undefined) continue;
      }
      const kind = FAILURE_POLICY[error.kind];
      const rule = ruleFor(error.kind, policy);
      if (rule === 'stop') return { type: 'stop' };
      if (kind.narrowsToLargerContext) {
        this.#contextLimit = contextWindowOf(current) ?? 0;
        return { type: 'next' };
      }
      if (!waitedForRetryAfter && shouldWaitForRetryAfter(error, rest, this.#call.deadlineAtMs, policy.retry_after_wait_max_ms)) {
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
  #untaken(targets: readonly ResolvedTarget[]): readonly ResolvedTarget[] {
    return this.#hedging === undefined ? targets : this.#hedging.untaken(targets);
  }

  /** Whether this attempt's first token comes after thinking: the request asks for it, or the model reasons by default. */
  #reasons(target: ResolvedTarget): boolean {
    return this.#operation.asksForReasoning === true || isReasoningModel(target.routedModel);
  }

  /** One attempt at `target`, numbered in the order attempts start and kept once it has ended. */
  async attempt(target: ResolvedTarget, permit: Permit, plan: AttemptPlan, operation = this.#operation): Promise<AttemptOutcome<Answer>> {
    const { timeouts } = this.#call.route.policy;
    // The deadline still clips it: the attempt's own deadline timer fires first when it is nearer.
    const firstToken = permit.firstTokenTimeout(timeouts, { streamedInputTokens: this.#operation.streamedInputTokens, lastOption: plan.lastOption, reasoning: this.#reasons(target) });
    const outcome = await runAttempt(
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
        accessTokens: this.#deps.accessTokens,
        idempotencyKey: this.#call.upstreamIdempotencyKey,
        observer: permit,
        thinkingDropped: operation !== this.#operation,
      },
      operation,
    );
    this.#keep(outcome.record);
    return outcome;
  }

  /** Attempts end out of order in a race; the record lists them in the order they started. */
  #keep(record: AttemptRecord): void {
    this.attempts.push(record);
    if (this.attempts.length > 1 && this.attempts.at(-2)!.n > record.n) this.attempts.sort((a, b) => a.n - b.n);
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
function shouldWaitForRetryAfter(error: UpstreamFailure, rest: readonly ResolvedTarget[], deadlineAtMs: number, waitMaxMs: number): boolean {
  if (!FAILURE_POLICY[error.kind].waitHelps || error.retryAfterMs === undefined) return false;
  if (rest.some((target) => !target.modelChange)) return false;
  return error.retryAfterMs <= waitMaxMs && Date.now() + error.retryAfterMs + MIN_ATTEMPT_MS <= deadlineAtMs;
}

function contextWindowOf(target: ResolvedTarget): number | undefined {
  return target.config.context_window ?? lookupModel(target.routedModel)?.contextWindow;
}
