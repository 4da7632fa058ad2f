import type { Config } from '../config/schema.js';
import { ConnectionLoad } from '../health/connection-load.js';
import { Cooling } from '../health/cooling.js';
import { FallbackShare } from '../health/fallback-share.js';
import { HealthMonitor, type HealthMonitorDeps } from '../health/health-monitor.js';
import { HealthRegistry } from '../health/health-registry.js';
import { LatencyTracker } from '../health/latency-tracker.js';
import { LocalHealthDoor } from '../health/local-health-door.js';
import { FleetFallbackShare } from '../state/fleet-fallback-share.js';
import { FleetRetryBuckets } from '../state/fleet-retry-buckets.js';
import type { RedisLink } from '../state/redis-link.js';
import { SharedHealth } from '../state/shared-health.js';
import type { Metrics } from '../telemetry/metrics.js';

/** Deployment state and the door the engine asks through: this replica's alone, or the fleet's over Redis. */
export interface Health {
  cooling: Cooling;
  latency: LatencyTracker;
  fallbackShare: FallbackShare;
  monitor: HealthMonitor;
  registry: HealthRegistry;
  door: LocalHealthDoor;
  /** The fleet's retry budgets over Redis; undefined on memory state. */
  retryBuckets: FleetRetryBuckets | undefined;
  /** The fleet's fallback share over Redis, flushed once a second; undefined on memory state. */
  fleetFallbackShare: FleetFallbackShare | undefined;
  /** Stops the fleet's background flushes, once the requests in flight have ended (`monitor.stop()` ends the probes). */
  close(): void;
}

export interface HealthDeps {
  config: () => Config;
  metrics: Metrics;
  alert: HealthMonitorDeps['alert'];
  probe: HealthMonitorDeps['probe'];
  /** With Redis, health, retry budgets and the fallback share are the fleet's; each replica still reads its own copy. */
  link: RedisLink | undefined;
}

/**
 * Health, wired: the monitor hears the registry's transitions, through `SharedHealth` when
 * replicas share them (it decides fleet-wide first). The monitor, the registry and
 * `SharedHealth` refer to each other, as the cooling and the fallback share do to their
 * fleet-wide halves, so each is handed the others as functions called after construction.
 */
export function buildHealth(deps: HealthDeps): Health {
  const { config, link } = deps;
  const fallbackShare = new FallbackShare({ onRecorded: (route, byFallback) => fleetFallbackShare?.count(route, byFallback) });
  const fleetFallbackShare = link && new FleetFallbackShare(link, fallbackShare);
  const cooling = new Cooling({ onCooled: (key, shared) => sharedHealth?.shareCooling(key, shared) });
  const latency = new LatencyTracker();
  const monitor: HealthMonitor = new HealthMonitor({
    registry: () => registry,
    cooling,
    latency,
    fallbackShare,
    config,
    metrics: deps.metrics,
    alert: deps.alert,
    probe: deps.probe,
    ...(link ? { probeLease: (deployment, leaseMs, purpose) => sharedHealth!.probeLease(deployment, leaseMs, purpose) } : {}),
  });
  const sharedHealth = link && new SharedHealth({ link, registry: () => registry, cooling, events: monitor });
  const registry: HealthRegistry = new HealthRegistry(sharedHealth ?? monitor, { config });
  const retryBuckets = link && new FleetRetryBuckets(link);
  return {
    cooling,
    latency,
    fallbackShare,
    monitor,
    registry,
    door: new LocalHealthDoor({ registry, cooling, load: new ConnectionLoad(), latency, config, trials: sharedHealth }),
    retryBuckets,
    fleetFallbackShare,
    close() {
      retryBuckets?.close();
      fleetFallbackShare?.close();
    },
  };
}
