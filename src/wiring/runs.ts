import type { Logger } from 'pino';
import type { AdminCanariesDeps } from '../admin/handle-canaries.js';
import { CanaryRunner } from '../canaries/canary-runner.js';
import { CanaryStore } from '../canaries/canary-store.js';
import type { ConfigSource } from '../config/config-source.js';
import { DrillRunner } from '../drills/drill-runner.js';
import { LocalLatestDrillRun } from '../drills/latest-drill-run.js';
import type { HealthRegistry } from '../health/health-registry.js';
import { LOCAL_RUN_LEASES, type RunLeases } from '../schedules/run-leases.js';
import { Schedule } from '../schedules/schedule.js';
import type { GatewayRequestDeps } from '../serving/run-gateway-request.js';
import { RedisLatestDrillRun } from '../state/redis-latest-drill-run.js';
import type { RedisLink } from '../state/redis-link.js';
import { RedisRunLeases } from '../state/redis-run-leases.js';
import type { Alert } from '../telemetry/alert-sender.js';
import type { Metrics } from '../telemetry/metrics.js';
import type { Storage } from './storage.js';

/** The gateway's own runs: the fallback drill and the quality canaries, scheduled and asked for. */
export interface Runs {
  drills: DrillRunner;
  adminCanaries: AdminCanariesDeps;
  /** Ends the runs in progress (their requests end, and are recorded) and stops the schedules. */
  close(): Promise<void>;
}

export interface RunsDeps {
  configSource: ConfigSource;
  /** The gateway's own traffic goes through the same engine, ledger and records as callers'. */
  gatewayRequests: GatewayRequestDeps;
  storage: Storage;
  registry: HealthRegistry;
  metrics: Metrics;
  alert(alert: Alert): void;
  logger: Logger;
  /** With Redis, replicas take turns at scheduled runs and one drill or canary runs fleet-wide at a time. */
  link: RedisLink | undefined;
}

/** Builds the drill and the canaries and starts their schedules. */
export function startRuns(deps: RunsDeps): Runs {
  const { configSource, gatewayRequests, metrics, logger, link } = deps;
  const config = () => configSource.current;
  const leases: RunLeases = link ? new RedisRunLeases(link) : LOCAL_RUN_LEASES;
  const schedules: Schedule[] = [];
  const canaryStore = new CanaryStore(deps.storage.db);
  const canaries = new CanaryRunner({
    config,
    configFile: configSource.file,
    gatewayRequests,
    store: canaryStore,
    metrics,
    alert: deps.alert,
    leases,
    logger,
    schedules,
    audit: deps.storage.audit,
  });
  configSource.subscribe((change) => {
    if (change.event === 'reloaded') canaries.reloaded(change.config);
  });
  const drills = new DrillRunner({
    config,
    gatewayRequests,
    engineHealth: gatewayRequests.engine.health,
    registry: deps.registry,
    adapterFor: gatewayRequests.engine.adapterFor,
    latest: link ? new RedisLatestDrillRun(link) : new LocalLatestDrillRun(),
    leases,
    alert: deps.alert,
    metrics,
    logger,
    audit: deps.storage.audit,
  });
  const drillSchedule = new Schedule({
    name: 'drill',
    intervalMs: () => config().drills.interval_s * 1000,
    leases,
    run: (cancellation) => drills.runScheduled(cancellation),
    logger,
  });
  schedules.push(drillSchedule);
  for (const schedule of schedules) schedule.start();
  return {
    drills,
    adminCanaries: { config, canaries, store: canaryStore },
    async close() {
      // Canary runs asked for through the admin API end too (scheduled ones, with their schedules below).
      await canaries.stop();
      // A scheduled run in progress is cut short; its requests end, and are recorded, before the sinks close.
      await Promise.all(schedules.map((schedule) => schedule.stop()));
      // So is an asked-for drill: its POST then answers with the steps it ran.
      await drills.close();
    },
  };
}
