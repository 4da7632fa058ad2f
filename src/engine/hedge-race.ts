import type { UpstreamFailure } from '../providers/spec.js';
import type { ResolvedTarget } from '../routing/resolve-route.js';
import type { AttemptOutcome } from './attempt-context.js';
import { timerDelayMs } from '../core/timer-delay.js';

/** One attempt under way, as a hedge race sees it. */
export interface RunningAttempt<Answer> {
  readonly target: ResolvedTarget;
  readonly startedAtMs: number;
  /** Settles when the attempt reaches its commit point or fails; never rejects. */
  readonly outcome: Promise<AttemptOutcome<Answer>>;
  /** Aborts it (its upstream request is cancelled) and resolves once it has settled. */
  cancel(): Promise<void>;
}

/** What the attempt loop lends a race: when to hedge, and how. */
export interface HedgePlan<Answer> {
  /** How long the youngest attempt may go without reaching its commit point before a hedge joins it. */
  afterMs: number;
  /** Extra attempts allowed beside the one the loop is on, at a time. */
  maxExtra: number;
  /** Starts the next extra attempt; undefined when none may (budget, deadline, no target left). */
  startHedge(): Promise<RunningAttempt<Answer> | undefined>;
  /** A failure whose rule ends the whole request: the attempts still running are cancelled. */
  stops(error: UpstreamFailure): boolean;
}

/** How a race ended: the attempt that answered, else the last one to fail (the one the loop goes on from). */
export interface RaceEnd<Answer> {
  attempt: RunningAttempt<Answer>;
  outcome: AttemptOutcome<Answer>;
}

/**
 * Runs an attempt with hedges beside it (docs/lifecycle.md, "Hedged attempts"): whenever the
 * youngest attempt started has not reached its commit point after `afterMs`, and fewer than
 * `maxExtra` hedges are running, the next one is started. The first to reach its commit point
 * wins and every other is cancelled at once. An attempt that fails leaves the others running: a
 * hedge whose original failed simply goes on as the loop's next attempt, and an original whose
 * hedge failed goes on as before. Nothing is left running when this returns.
 */
export async function raceWithHedges<Answer>(first: RunningAttempt<Answer>, plan: HedgePlan<Answer>): Promise<RaceEnd<Answer>> {
  const running = new Map<RunningAttempt<Answer>, Promise<RaceEnd<Answer>>>();
  const watch = (attempt: RunningAttempt<Answer>) => running.set(attempt, attempt.outcome.then((outcome) => ({ attempt, outcome })));
  const cancelRest = () => Promise.all([...running.keys()].map((attempt) => attempt.cancel()));
  watch(first);
  let hedging = true;
  let youngestStartedAtMs = first.startedAtMs;
  for (;;) {
    // A hedge whose original failed is the loop's next attempt, yet still holds its slot: the
    // original's failure is no reason to start another (that would be a second failover).
    const hedgesRunning = running.size - (running.has(first) ? 1 : 0);
    const hedgeDueAtMs = hedging && hedgesRunning < plan.maxExtra ? youngestStartedAtMs + plan.afterMs : undefined;
    const next = await settledOrDue([...running.values()], hedgeDueAtMs);
    if (next === HEDGE_DUE) {
      const hedge = await plan.startHedge();
      // A hedge refused now (budget, deadline, no target) is not asked for again in this race.
      if (hedge === undefined) hedging = false;
      else {
        watch(hedge);
        youngestStartedAtMs = hedge.startedAtMs;
      }
      continue;
    }
    running.delete(next.attempt);
    if (next.outcome.ok || running.size === 0 || plan.stops(next.outcome.error)) {
      await cancelRest();
      return next;
    }
  }
}

const HEDGE_DUE = Symbol('hedge due');

/** The first attempt to settle, or `HEDGE_DUE` if `dueAtMs` comes first; the timer never outlives the wait. */
async function settledOrDue<T>(settling: Promise<T>[], dueAtMs: number | undefined): Promise<T | typeof HEDGE_DUE> {
  if (dueAtMs === undefined) return Promise.race(settling);
  let timer: NodeJS.Timeout | undefined;
  const due = new Promise<typeof HEDGE_DUE>((resolve) => {
    timer = setTimeout(() => resolve(HEDGE_DUE), timerDelayMs(Math.max(0, dueAtMs - Date.now())));
  });
  try {
    return await Promise.race([...settling, due]);
  } finally {
    clearTimeout(timer);
  }
}
