import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Cancellation } from '../core/cancellation.js';
import { LOCAL_RUN_LEASES, type RunLeases } from './run-leases.js';
import { SHUTTING_DOWN, Schedule } from './schedule.js';

const logger = pino({ level: 'silent' });

/** A schedule on a hand-moved clock whose runs are counted (and can be held open). */
function scheduleOf(options: { intervalMs: () => number; leases?: RunLeases; offsetMs?: number; hold?: Promise<void> }) {
  let nowMs = 1_000_000;
  const runs: number[] = [];
  const abortReasons: unknown[] = [];
  const schedule = new Schedule({
    name: 'job',
    intervalMs: options.intervalMs,
    leases: options.leases ?? LOCAL_RUN_LEASES,
    logger,
    now: () => nowMs,
    ...(options.offsetMs === undefined ? {} : { offsetMs: options.offsetMs }),
    async run(cancellation: Cancellation) {
      runs.push(nowMs);
      if (!options.hold) return;
      await Promise.race([options.hold, new Promise<void>((resolve) => cancellation.onAbort(() => resolve()))]);
      if (cancellation.aborted) abortReasons.push(cancellation.reason);
    },
  });
  return { schedule, runs, abortReasons, advance: (ms: number) => (nowMs += ms) };
}

describe('a schedule', () => {
  it('runs one interval after it starts, then every interval from the previous start', async () => {
    const { schedule, runs, advance } = scheduleOf({ intervalMs: () => 10_000 });
    await schedule.tick();
    expect(runs).toHaveLength(0);
    advance(9_999);
    await schedule.tick();
    expect(runs).toHaveLength(0);
    advance(1);
    await schedule.tick();
    advance(5_000);
    await schedule.tick();
    advance(5_000);
    await schedule.tick();
    expect(runs).toEqual([1_010_000, 1_020_000]);
  });

  it('reads its interval on every tick, so a reload retimes it; 0 stops it without forgetting when it last ran', async () => {
    let intervalMs = 10_000;
    const { schedule, runs, advance } = scheduleOf({ intervalMs: () => intervalMs });
    intervalMs = 2_000;
    advance(2_000);
    await schedule.tick();
    intervalMs = 0;
    advance(60_000);
    await schedule.tick();
    intervalMs = 2_000;
    await schedule.tick();
    expect(runs).toEqual([1_002_000, 1_062_000]);
  });

  it('waits its offset before the first run, so jobs of one interval do not start together', async () => {
    const { schedule, runs, advance } = scheduleOf({ intervalMs: () => 1_000, offsetMs: 500 });
    advance(1_000);
    await schedule.tick();
    advance(500);
    await schedule.tick();
    expect(runs).toEqual([1_001_500]);
  });

  it('never overlaps itself: a run that outlasts its interval is not joined by another', async () => {
    let release!: () => void;
    const { schedule, runs, advance } = scheduleOf({ intervalMs: () => 1_000, hold: new Promise<void>((resolve) => (release = resolve)) });
    advance(1_000);
    const first = schedule.tick();
    advance(5_000);
    await schedule.tick();
    expect(runs).toHaveLength(1);
    release();
    await first;
    await schedule.tick();
    expect(runs).toHaveLength(2);
  });

  it('runs only when it holds the lease, and a lost claim waits a whole interval', async () => {
    const claims: number[] = [];
    let granted = false;
    const leases: RunLeases = { ...LOCAL_RUN_LEASES, claim: async (_name, forMs) => (claims.push(forMs), granted) };
    const { schedule, runs, advance } = scheduleOf({ intervalMs: () => 3_000, leases });
    advance(3_000);
    await schedule.tick();
    granted = true;
    advance(1_000);
    await schedule.tick();
    advance(2_000);
    await schedule.tick();
    expect(claims).toEqual([3_000, 3_000]);
    expect(runs).toEqual([1_006_000]);
  });

  it('stop aborts the run in progress and waits for it to end; no run starts after', async () => {
    const { schedule, runs, abortReasons, advance } = scheduleOf({ intervalMs: () => 1_000, hold: new Promise<void>(() => undefined) });
    advance(1_000);
    const running = schedule.tick();
    await Promise.resolve();
    const stopped = schedule.stop();
    await running;
    await stopped;
    advance(10_000);
    await schedule.tick();
    expect(runs).toHaveLength(1);
    expect(abortReasons).toEqual([SHUTTING_DOWN]);
  });
});
