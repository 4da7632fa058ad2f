import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { SYSTEM_CONTEXT, type AuditContext, type AuditTrail } from '../audit/audit-trail.js';
import type { Config } from '../config/schema.js';
import { Cancellation } from '../core/cancellation.js';
import { holdRun } from '../schedules/run-hold.js';
import type { RunLeases } from '../schedules/run-leases.js';
import { Schedule, SHUTTING_DOWN } from '../schedules/schedule.js';
import type { CanaryRun } from './canary-run.js';
import { runCanary, type CanaryDeps } from './run-canary.js';

/**
 * At most this long between the first scheduled runs of two canary routes (less when their
 * intervals are short), so the routes of one interval do not all start at once.
 */
const CANARY_SPREAD_MS = 30_000;

export interface CanaryRunnerOptions extends CanaryDeps {
  leases: RunLeases;
  logger: Logger;
  /** The gateway's schedules (started after start-up, stopped on shutdown): each canary route's is kept there. */
  schedules: Schedule[];
  /** Every run kept ends with a `canary.run` row: by whoever asked for it, or by the gateway on its schedule. */
  audit: Pick<AuditTrail, 'event'>;
}

/** A run asked for while the same route's canary is running. */
export class CanaryRunningError extends Error {
  readonly route: string;
  readonly runId: string;

  constructor(route: string, runId: string) {
    super(`The canary of route ${route} is running (run ${runId}); try again when it has finished.`);
    this.name = 'CanaryRunningError';
    this.route = route;
    this.runId = runId;
  }
}

function newRunId(): string {
  return `cnr_${Date.now().toString(36)}${randomBytes(5).toString('hex')}`;
}

/**
 * The gateway's quality canaries: one schedule per canary route (lease `canary:<route>`, so one
 * replica of a fleet runs it per interval), kept in step with the config on every reload, and
 * runs asked for through the admin API. A route's canary runs at most once at a time on this
 * gateway, whoever asked, and with Redis once at a time fleet-wide (held under the run's id).
 */
export class CanaryRunner {
  readonly #options: CanaryRunnerOptions;
  readonly #byRoute = new Map<string, Schedule>();
  /** Routes whose canary is running, with the run's id and how to cut it short. */
  readonly #running = new Map<string, { runId: string; cancellation: Cancellation; done: Promise<unknown> }>();
  /** Runs start one after another: a second looks for running routes only once the first holds its own, or not. */
  #starting: Promise<unknown> = Promise.resolve();

  /** Builds the schedules of the config in force; the gateway starts them with its others. */
  constructor(options: CanaryRunnerOptions) {
    this.#options = options;
    this.#addSchedules(options.config(), false);
  }

  /** After a reload: a schedule for each new canary route (started at once), none for a route that lost its canary. */
  reloaded(config: Config): void {
    for (const [route, schedule] of this.#byRoute) {
      if (Object.hasOwn(config.canaries, route)) continue;
      this.#byRoute.delete(route);
      const schedules = this.#options.schedules;
      schedules.splice(schedules.indexOf(schedule), 1);
      void schedule.stop();
    }
    this.#addSchedules(config, true);
  }

  #addSchedules(config: Config, start: boolean): void {
    const routes = Object.keys(config.canaries);
    routes.forEach((route, index) => {
      if (this.#byRoute.has(route)) return;
      const spreadMs = Math.min(CANARY_SPREAD_MS, (config.canaries[route]!.interval_s * 1000) / routes.length);
      const schedule = new Schedule({
        name: `canary:${route}`,
        // Read on every tick: a reload that retimes the canary applies at once.
        intervalMs: () => (this.#options.config().canaries[route]?.interval_s ?? 0) * 1000,
        leases: this.#options.leases,
        logger: this.#options.logger,
        offsetMs: Math.round(index * spreadMs),
        run: (cancellation) => this.#scheduledRun(route, cancellation),
      });
      this.#byRoute.set(route, schedule);
      this.#options.schedules.push(schedule);
      if (start) schedule.start();
    });
  }

  async #scheduledRun(route: string, cancellation: Cancellation): Promise<void> {
    let run;
    try {
      run = await this.#track([route], cancellation, (runIds) => this.#runAudited(route, runIds.get(route)!, cancellation, SYSTEM_CONTEXT));
    } catch (error) {
      if (error instanceof CanaryRunningError) {
        this.#options.logger.info({ route, run_id: error.runId }, 'scheduled canary run skipped: one is running');
        return;
      }
      // Shutting down is no failure of the canary's.
      if (error !== SHUTTING_DOWN) throw error;
      this.#options.logger.info({ route }, 'canary run cut short: the gateway is shutting down');
      return;
    }
    this.#options.logger.info({ route, run_id: run.id, score: run.score, baseline: run.baseline, dropped: run.dropped }, 'canary run finished');
  }

  /**
   * Runs the canaries of `routes` now, one route after another, and resolves with their runs,
   * each audited under `context` (who asked). Throws `CanaryRunningError` (starting none) when one
   * of them is running already, here or (with Redis) on another replica.
   */
  async runNow(routes: readonly string[], context: AuditContext): Promise<CanaryRun[]> {
    const cancellation = new Cancellation();
    return this.#track(routes, cancellation, async (runIds) => {
      const runs: CanaryRun[] = [];
      for (const route of routes) runs.push(await this.#runAudited(route, runIds.get(route)!, cancellation, context));
      return runs;
    });
  }

  /** One route's run, and its `canary.run` row once it is kept (a run cut short is neither). */
  async #runAudited(route: string, runId: string, cancellation: Cancellation, context: AuditContext): Promise<CanaryRun> {
    const run = await runCanary(route, runId, cancellation, this.#options);
    const { prompts, ...summary } = run;
    await this.#options.audit.event(context, { action: 'canary.run', target: { kind: 'canary', id: run.id }, after: { ...summary, prompts: prompts.length } });
    return run;
  }

  /** Marks the routes running (with a run id each) while `work` runs: here, and with Redis fleet-wide. */
  async #track<T>(routes: readonly string[], cancellation: Cancellation, work: (runIds: ReadonlyMap<string, string>) => Promise<T>): Promise<T> {
    const held = this.#starting.then(() => this.#hold(routes));
    this.#starting = held.catch(() => undefined);
    const { runIds, releases } = await held;
    // Started once the routes are marked, so nothing it does can see them free.
    const done = Promise.resolve().then(() => work(runIds));
    for (const route of routes) this.#running.set(route, { runId: runIds.get(route)!, cancellation, done: done.catch(() => undefined) });
    try {
      return await done;
    } finally {
      await Promise.all(releases.map((release) => release()));
      for (const route of routes) if (this.#running.get(route)?.runId === runIds.get(route)) this.#running.delete(route);
    }
  }

  /**
   * A run id per route, each route held under it fleet-wide (`canary:<route>`); throws
   * `CanaryRunningError`, holding none, when one of them is running here or elsewhere.
   */
  async #hold(routes: readonly string[]): Promise<{ runIds: ReadonlyMap<string, string>; releases: (() => Promise<void>)[] }> {
    for (const route of routes) {
      const running = this.#running.get(route);
      if (running) throw new CanaryRunningError(route, running.runId);
    }
    const runIds = new Map(routes.map((route) => [route, newRunId()]));
    const releases: (() => Promise<void>)[] = [];
    for (const route of routes) {
      const hold = await holdRun(this.#options.leases, `canary:${route}`, runIds.get(route)!);
      if ('heldBy' in hold) {
        await Promise.all(releases.map((release) => release()));
        throw new CanaryRunningError(route, hold.heldBy);
      }
      releases.push(hold.release);
    }
    return { runIds, releases };
  }

  /** The id of the route's run in progress, if one is. */
  runningId(route: string): string | undefined {
    return this.#running.get(route)?.runId;
  }

  /** Cuts short every run in progress (asked for or scheduled) and waits for them; the schedules are the gateway's to stop. */
  async stop(): Promise<void> {
    const running = [...this.#running.values()];
    for (const { cancellation } of running) cancellation.abort(SHUTTING_DOWN);
    await Promise.all(running.map(({ done }) => done));
  }
}
