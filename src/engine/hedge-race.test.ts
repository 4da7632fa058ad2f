import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AttemptRecord } from '../core/attempt-record.js';
import type { ResolvedTarget } from '../routing/resolve-route.js';
import { raceWithHedges, type HedgePlan, type RunningAttempt } from './hedge-race.js';
import type { AttemptContext, AttemptOutcome } from './attempt-context.js';

/** An attempt the test settles by hand; `cancel` settles it as cancelled. */
function attemptAt(name: string) {
  let settle!: (outcome: AttemptOutcome<string>) => void;
  const outcome = new Promise<AttemptOutcome<string>>((resolve) => (settle = resolve));
  const record = { connection: name } as AttemptRecord;
  // The race reads outcomes only; what writes an attempt's record is not its business.
  const ofAttempt = { record, attempt: {} as AttemptContext };
  const events: string[] = [];
  const attempt: RunningAttempt<string> = {
    target: { connectionName: name } as ResolvedTarget,
    startedAtMs: Date.now(),
    outcome,
    cancel: async () => {
      events.push('cancelled');
      settle({ ok: false, ...ofAttempt, error: { kind: 'cancelled', message: 'answered elsewhere' } });
      await outcome;
    },
  };
  return {
    attempt,
    events,
    answer: () => settle({ ok: true, ...ofAttempt, answer: name }),
    fail: () => settle({ ok: false, ...ofAttempt, error: { kind: 'server_error', message: 'down' } }),
  };
}

function planOf(hedges: ReturnType<typeof attemptAt>[], overrides: Partial<HedgePlan<string>> = {}) {
  const started: string[] = [];
  const plan: HedgePlan<string> = {
    afterMs: 20,
    maxExtra: 1,
    startHedge: async () => {
      const next = hedges.shift();
      if (next) started.push(next.attempt.target.connectionName);
      return next?.attempt;
    },
    stops: () => false,
    ...overrides,
  };
  return { plan, started };
}

describe('raceWithHedges', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('an original that answers before after_ms starts no hedge', async () => {
    const original = attemptAt('a');
    const { plan, started } = planOf([attemptAt('b')]);
    original.answer();
    const end = await raceWithHedges(original.attempt, plan);
    expect(end.attempt).toBe(original.attempt);
    expect(started).toEqual([]);
  });

  it('a hedge that answers first wins, and the original is cancelled before the race returns', async () => {
    const original = attemptAt('a');
    const hedge = attemptAt('b');
    const { plan, started } = planOf([hedge]);
    const race = raceWithHedges(original.attempt, plan);
    await vi.advanceTimersByTimeAsync(25);
    hedge.answer();
    const end = await race;
    expect(end.attempt).toBe(hedge.attempt);
    expect(end.outcome.ok).toBe(true);
    expect(original.events).toEqual(['cancelled']);
    expect(started).toEqual(['b']);
  });

  it('a hedge whose original fails goes on; the failure starts no second hedge', async () => {
    const original = attemptAt('a');
    const hedge = attemptAt('b');
    const third = attemptAt('c');
    const { plan, started } = planOf([hedge, third], { maxExtra: 1 });
    const race = raceWithHedges(original.attempt, plan);
    await vi.advanceTimersByTimeAsync(40);
    original.fail();
    await vi.advanceTimersByTimeAsync(60);
    hedge.answer();
    const end = await race;
    expect(end.attempt).toBe(hedge.attempt);
    expect(started).toEqual(['b']);
  });

  it('an original whose hedge fails goes on, and may be hedged again once after_ms has passed', async () => {
    const original = attemptAt('a');
    const hedge = attemptAt('b');
    const third = attemptAt('c');
    const { plan, started } = planOf([hedge, third]);
    const race = raceWithHedges(original.attempt, plan);
    await vi.advanceTimersByTimeAsync(30);
    hedge.fail();
    await vi.advanceTimersByTimeAsync(60);
    original.answer();
    const end = await race;
    expect(end.attempt).toBe(original.attempt);
    expect(started).toEqual(['b', 'c']);
    expect(third.events).toEqual(['cancelled']);
  });

  it('a refused hedge is not asked for again; the last failure ends the race', async () => {
    const original = attemptAt('a');
    let asked = 0;
    const { plan } = planOf([], { startHedge: async () => (asked++, undefined) });
    const race = raceWithHedges(original.attempt, plan);
    await vi.advanceTimersByTimeAsync(80);
    original.fail();
    const end = await race;
    expect(end.outcome.ok).toBe(false);
    expect(asked).toBe(1);
  });

  it('a failure whose rule stops the request cancels the hedge still running', async () => {
    const original = attemptAt('a');
    const hedge = attemptAt('b');
    const { plan } = planOf([hedge], { stops: () => true });
    const race = raceWithHedges(original.attempt, plan);
    await vi.advanceTimersByTimeAsync(40);
    original.fail();
    const end = await race;
    expect(end.attempt).toBe(original.attempt);
    expect(hedge.events).toEqual(['cancelled']);
  });
});
