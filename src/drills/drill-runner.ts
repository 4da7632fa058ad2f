import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { SYSTEM_CONTEXT, type AuditContext, type AuditTrail } from '../audit/audit-trail.js';
import { Cancellation } from '../core/cancellation.js';
import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import { routeAllowed } from '../keys/route-globs.js';
import { resolveRoute, type ResolvedRoute } from '../routing/resolve-route.js';
import { holdRun } from '../schedules/run-hold.js';
import type { RunLeases } from '../schedules/run-leases.js';
import { SHUTTING_DOWN } from '../schedules/schedule.js';
import type { Alert } from '../telemetry/alert-sender.js';
import type { Metrics } from '../telemetry/metrics.js';
import { stepFailed, type DrillRun, type DrillStep } from './drill-run.js';
import type { LatestDrillRun } from './latest-drill-run.js';
import { planDrillSteps } from './plan-drill-steps.js';
import { runDrillStep, type DrillStepDeps } from './run-drill-step.js';

export interface DrillRunnerDeps extends DrillStepDeps {
  latest: LatestDrillRun;
  /** With Redis, where the fleet's running drill is held (`drill`), so one runs at a time fleet-wide. */
  leases: RunLeases;
  alert(alert: Alert): void;
  metrics: Metrics;
  logger: Logger;
  /** Every run ends with a `drill.run` row: by whoever asked for it, or by the gateway on its schedule. */
  audit: Pick<AuditTrail, 'event'>;
}

/** How a drill is started: over one route or every one `drills.routes` matches, cut short by `cancellation`, audited under `context`. */
export interface DrillStart {
  route?: string;
  cancellation?: Cancellation;
  /** Who asked (the gateway itself when not given). */
  context?: AuditContext;
}

/** A drill was asked for while one runs (on this gateway, or with Redis on any replica). */
export class DrillRunningError extends Error {
  readonly runId: string;

  constructor(runId: string) {
    super(`A drill is already running (${runId}); wait for it to finish, or read its progress with GET /admin/drills.`);
    this.runId = runId;
  }
}

/**
 * The fallback drill (docs/drills-and-canaries.md): one at a time per gateway — and with Redis
 * per fleet, held under the run's id — one request at a time, over the routes `drills.routes`
 * matches in config order (or the one route asked for). A failed step is a finding — a
 * `drill_failed` alert and `switchyard_drill_failures_total`.
 */
export class DrillRunner {
  readonly #deps: DrillRunnerDeps;
  #running: { run: DrillRun; cancellation: Cancellation; done: Promise<DrillRun> } | undefined;
  /** Starts take turns: a second one looks for a running drill only once the first has claimed its hold, or not. */
  #starting: Promise<unknown> = Promise.resolve();

  constructor(deps: DrillRunnerDeps) {
    this.#deps = deps;
  }

  /**
   * Starts a drill over `route` (even one `drills.routes` leaves out) or over every route it
   * matches. Throws `DrillRunningError` while one runs here or, with Redis, on another replica,
   * and a 404 for a route the config does not have; `cancellation` (the schedule's) cuts it short.
   */
  start(options: DrillStart = {}): Promise<{ run: DrillRun; done: Promise<DrillRun> }> {
    const started = this.#starting.then(() => this.#start(options));
    this.#starting = started.catch(() => undefined);
    return started;
  }

  async #start(options: DrillStart): Promise<{ run: DrillRun; done: Promise<DrillRun> }> {
    if (this.#running) throw new DrillRunningError(this.#running.run.id);
    const routes = drillRoutes(this.#deps.config(), options.route);
    const run: DrillRun = { id: `drill_${randomUUID()}`, started_at: new Date().toISOString(), finished_at: null, steps: [] };
    const hold = await holdRun(this.#deps.leases, 'drill', run.id);
    if ('heldBy' in hold) throw new DrillRunningError(hold.heldBy);
    const cancellation = new Cancellation();
    options.cancellation?.onAbort((reason) => cancellation.abort(reason));
    if (options.cancellation?.aborted) cancellation.abort(options.cancellation.reason);
    const done = this.#run(run, routes, cancellation, options).finally(async () => {
      await hold.release();
      this.#running = undefined;
    });
    this.#running = { run, cancellation, done };
    return { run, done };
  }

  /** The run in progress here, else the latest one kept (with Redis: the fleet's). */
  async latest(): Promise<DrillRun | undefined> {
    return this.#running?.run ?? (await this.#deps.latest.load());
  }

  /** The scheduled drill; passed over while an asked-for one runs (here, or with Redis anywhere). */
  async runScheduled(cancellation: Cancellation): Promise<void> {
    let started;
    try {
      started = await this.start({ cancellation });
    } catch (error) {
      if (!(error instanceof DrillRunningError)) throw error;
      this.#deps.logger.info({ run_id: error.runId }, 'scheduled drill passed over: a drill is already running');
      return;
    }
    await started.done;
  }

  /** Cuts a run in progress short and waits for it (the gateway is shutting down). */
  async close(): Promise<void> {
    const running = this.#running;
    if (!running) return;
    running.cancellation.abort(SHUTTING_DOWN);
    await running.done;
  }

  async #run(run: DrillRun, routes: readonly ResolvedRoute[], cancellation: Cancellation, options: DrillStart): Promise<DrillRun> {
    const { latest, logger } = this.#deps;
    await latest.save(run);
    try {
      walk: for (const route of routes) {
        for (const planned of planDrillSteps(route)) {
          if (cancellation.aborted) break walk;
          const step = await runDrillStep(planned, this.#deps, cancellation);
          if (!step) break walk;
          run.steps.push(step);
          if (stepFailed(step)) this.#report(step, run);
          await latest.save(run);
        }
      }
    } catch (error) {
      logger.error({ err: error, run_id: run.id }, 'the drill stopped on an internal error');
    }
    run.finished_at = new Date().toISOString();
    await latest.save(run);
    const failed = run.steps.filter(stepFailed).length;
    logger.info({ run_id: run.id, steps: run.steps.length, failed, cut_short: cancellation.aborted }, 'drill finished');
    await this.#deps.audit.event(options.context ?? SYSTEM_CONTEXT, drillRunEvent(run, options.route, routes, cancellation.aborted));
    return run;
  }

  #report(step: DrillStep, run: DrillRun): void {
    const deployment = `${step.connection}/${step.model}`;
    this.#deps.metrics.drillFailures.inc({ route: step.route, target: deployment, kind: step.kind ?? step.result });
    this.#deps.alert({
      type: 'drill_failed',
      route: step.route,
      deployment,
      position: step.position,
      step: step.step,
      kind: step.kind ?? step.result,
      message: step.message ?? '',
      reason: `the drill's ${step.step} step at position ${step.position} failed: ${step.kind}: ${step.message}`,
      since: run.started_at,
    });
  }
}

/** The `drill.run` row of a finished run: which routes, and how its steps went. */
function drillRunEvent(run: DrillRun, askedRoute: string | undefined, routes: readonly ResolvedRoute[], cutShort: boolean) {
  return {
    action: 'drill.run' as const,
    target: { kind: 'drill', id: run.id },
    after: {
      id: run.id,
      route: askedRoute ?? null,
      routes: routes.map((route) => route.name),
      started_at: run.started_at,
      finished_at: run.finished_at,
      steps: run.steps.length,
      failed: run.steps.filter(stepFailed).length,
      skipped: run.steps.filter((step) => step.result === 'skipped').length,
      cut_short: cutShort,
    },
  };
}

/** The routes one drill covers, in config order. */
function drillRoutes(config: Config, name: string | undefined): ResolvedRoute[] {
  if (name !== undefined) {
    if (!Object.hasOwn(config.routes, name)) {
      throw new GatewayError(`No route named '${name}' in the config.`, { status: 404, code: 'not_found', type: 'invalid_request_error', param: 'route' });
    }
    return [resolveRoute(config, name)];
  }
  return Object.keys(config.routes)
    .filter((route) => routeAllowed(config.drills.routes, route))
    .map((route) => resolveRoute(config, route));
}
