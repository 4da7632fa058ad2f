import type { HedgeConfig } from '../config/schema.js';
import { ANSWERED_ELSEWHERE, Cancellation } from '../core/cancellation.js';
import { ruleFor } from '../core/failure-policy.js';
import type { HealthDoor, Permit } from '../health/health-door.js';
import type { ResolvedRoute, ResolvedTarget } from '../routing/resolve-route.js';
import { MIN_ATTEMPT_MS } from './deadline.js';
import { raceWithHedges, type RunningAttempt } from './hedge-race.js';
import type { RetryBudget } from './retry-budget.js';
import type { AttemptOutcome } from './attempt-context.js';
import type { Operation } from './run-attempt.js';

/** How the loop runs one attempt: whether it is the plan's last option, whether a hedge, whom it follows. */
export interface AttemptPlan {
  lastOption: boolean;
  hedge: boolean;
  caller: Cancellation;
}

/** An attempt that has ended (for an answer: at its commit point), and the target it went to. */
export interface Ended<Answer> {
  target: ResolvedTarget;
  outcome: AttemptOutcome<Answer>;
}

/** What hedging asks of the attempt loop it works for. */
export interface HedgedLoop<Answer> {
  /** Whether what the loop has learned still lets `target` be tried (a context window too small, a forced failure). */
  mayHedgeTo(target: ResolvedTarget): boolean;
  /** One attempt at `target`, numbered and kept in the loop's list of attempts once it has ended. */
  attempt(target: ResolvedTarget, permit: Permit, plan: AttemptPlan): Promise<AttemptOutcome<Answer>>;
}

/** The request's side of hedging: its route, the caller it follows, its deadline. */
export interface HedgedCall {
  route: ResolvedRoute;
  caller: Cancellation;
  deadlineAtMs: number;
}

/**
 * A route's hedging, the attempt loop's collaborator (docs/lifecycle.md, "Hedged attempts"). The
 * loop asks it whether an attempt is hedged (`delayFor`) and, when it is, lets it run the race
 * (`race`), which hands back the attempt that ended it: the winner, or the last to fail, whose
 * target the loop goes on from. It remembers the targets a hedge went to, which the loop's walk
 * through its plan passes over. Made only for a route with `hedge`.
 */
export class Hedging<Answer> {
  readonly #hedge: HedgeConfig;
  readonly #call: HedgedCall;
  readonly #loop: HedgedLoop<Answer>;
  readonly #health: HealthDoor;
  readonly #budget: RetryBudget;
  readonly #operation: Operation<Answer>;
  /** Targets a hedge went to: the plan walk does not try them again. */
  readonly #hedged = new Set<ResolvedTarget>();

  constructor(hedge: HedgeConfig, call: HedgedCall, loop: HedgedLoop<Answer>, deps: { health: HealthDoor; budget: RetryBudget; operation: Operation<Answer> }) {
    this.#hedge = hedge;
    this.#call = call;
    this.#loop = loop;
    this.#health = deps.health;
    this.#budget = deps.budget;
    this.#operation = deps.operation;
  }

  /** Whether a hedge went to `target` already. */
  took(target: ResolvedTarget): boolean {
    return this.#hedged.has(target);
  }

  /** The plan's targets not yet taken by a hedge. */
  untaken(targets: readonly ResolvedTarget[]): readonly ResolvedTarget[] {
    return this.#hedged.size === 0 ? targets : targets.filter((target) => !this.#hedged.has(target));
  }

  /**
   * Whether to hedge an attempt that has a later target to hedge with: after how long without
   * reaching its commit point, as its permit says; undefined when the permit gives no delay.
   */
  delayFor(permit: Permit, reasoning: boolean): number | undefined {
    return permit.hedgeAfterMs(this.#hedge, { streamed: this.#operation.streamedInputTokens !== undefined, reasoning });
  }

  /** One attempt at `target` raced against hedges from `plannedRest` (hedge-race.ts): the first to reach its commit point answers. */
  async race(target: ResolvedTarget, permit: Permit, plannedRest: readonly ResolvedTarget[], afterMs: number): Promise<Ended<Answer>> {
    const end = await raceWithHedges(this.#start(target, permit, { lastOption: false, hedge: false }), {
      afterMs,
      maxExtra: this.#hedge.max_extra,
      startHedge: () => this.#startHedge(plannedRest, afterMs),
      stops: (error) => ruleFor(error.kind, this.#call.route.policy) === 'stop',
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
    const candidates = this.untaken(plannedRest).filter((target) => this.#loop.mayHedgeTo(target));
    if (candidates.length === 0 || !(await this.#budget.tryRetry())) return undefined;
    for (const [index, candidate] of candidates.entries()) {
      const permit = await this.#health.admit(candidate, this.#call.route);
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
    const outcome = this.#loop.attempt(target, permit, { ...plan, caller });
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
    if (outcome.ok) {
      // It reached its commit point as the winner did; its answer is dropped unread.
      await this.#operation.discard?.(outcome.answer);
      outcome.attempt.answeredElsewhere(ANSWERED_ELSEWHERE.message);
    }
    if (this.#operation.estimateInputTokens) outcome.attempt.billCancelledInput(this.#operation.estimateInputTokens);
  }
}
