import type { Logger } from 'pino';
import { Cancellation } from '../core/cancellation.js';
import type { RunLeases } from './run-leases.js';

const TICK_MS = 1_000;

/** The reason a scheduled run stops early: the gateway is shutting down. */
export const SHUTTING_DOWN = new Error('the gateway is shutting down');

export interface ScheduleOptions {
  /** Names the job in logs and in its lease (one per drill, one per canary route). */
  name: string;
  /** Read on every tick, so a reload's new interval applies at once; 0: not scheduled. */
  intervalMs(): number;
  leases: RunLeases;
  /** One run; `cancellation` aborts when the gateway shuts down. */
  run(cancellation: Cancellation): Promise<void>;
  logger: Logger;
  /** Added to the first run's wait, so jobs of one interval do not all start at once. */
  offsetMs?: number;
  now?: () => number;
}

/**
 * Runs a job every interval, counted from the previous run's start (or from the start of the
 * schedule for the first). Never two runs at once: a run that outlasts its interval is followed
 * by the next as soon as it ends. Each run first claims the job's lease, so replicas take turns
 * rather than all running it; one that loses the claim waits another interval. A config reload
 * keeps the schedule (the job and its last start) and only changes how long it waits.
 */
export class Schedule {
  readonly #options: ScheduleOptions;
  readonly #now: () => number;
  #lastStartMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: { cancellation: Cancellation; done: Promise<void> } | undefined;
  #claiming = false;
  #stopped = false;

  constructor(options: ScheduleOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#lastStartMs = this.#now() + (options.offsetMs ?? 0);
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.tick(), TICK_MS).unref();
  }

  /** Stops the timer, aborts a run in progress and waits for it to end (its records kept). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    const running = this.#running;
    if (!running) return;
    running.cancellation.abort(SHUTTING_DOWN);
    await running.done;
  }

  /** Starts a run when one is due. Exposed for tests. */
  async tick(): Promise<void> {
    const intervalMs = this.#options.intervalMs();
    if (intervalMs <= 0 || this.#running || this.#claiming || this.#stopped) return;
    const nowMs = this.#now();
    if (nowMs < this.#lastStartMs + intervalMs) return;
    this.#claiming = true;
    let claimed: boolean;
    try {
      claimed = await this.#options.leases.claim(this.#options.name, intervalMs);
    } finally {
      this.#claiming = false;
    }
    this.#lastStartMs = nowMs;
    if (!claimed || this.#stopped) return;
    const cancellation = new Cancellation();
    const done = this.#runHoldingLease(cancellation, intervalMs);
    this.#running = { cancellation, done };
    await done;
  }

  async #runHoldingLease(cancellation: Cancellation, intervalMs: number): Promise<void> {
    const { name, leases, logger } = this.#options;
    const renewal = setInterval(() => void leases.renew(name, intervalMs), Math.max(TICK_MS, intervalMs / 2)).unref();
    try {
      await this.#options.run(cancellation);
    } catch (error) {
      logger.error({ err: error, job: name }, 'a scheduled run failed');
    } finally {
      clearInterval(renewal);
      this.#running = undefined;
    }
  }
}
