/**
 * Replicas of the gateway's health machinery in one test process: each has its own registry,
 * door, monitor, cooling and retry budgets, wired as the gateway wires them (`src/wiring/health.ts`), on its own
 * `RedisLink` to one Redis ("redis"), or none at all ("memory": then both names are one replica,
 * since a single process is the fleet).
 */
import { configSchema, type Config } from '../../src/config/schema.js';
import type { AttemptRecord } from '../../src/core/attempt-record.js';
import type { FailureKind } from '../../src/core/failure-kind.js';
import { RetryBudgets } from '../../src/engine/retry-budget.js';
import type { Cooling } from '../../src/health/cooling.js';
import type { FallbackShare } from '../../src/health/fallback-share.js';
import type { Out, Permit } from '../../src/health/health-door.js';
import type { HealthMonitor } from '../../src/health/health-monitor.js';
import type { HealthRegistry } from '../../src/health/health-registry.js';
import type { LocalHealthDoor } from '../../src/health/local-health-door.js';
import { resolveRoute, type ResolvedRoute, type ResolvedTarget } from '../../src/routing/resolve-route.js';
import type { FleetFallbackShare } from '../../src/state/fleet-fallback-share.js';
import type { FleetRetryBuckets } from '../../src/state/fleet-retry-buckets.js';
import { RedisLink, type RedisLinkOptions } from '../../src/state/redis-link.js';
import type { Alert } from '../../src/telemetry/alert-sender.js';
import { Metrics } from '../../src/telemetry/metrics.js';
import { buildHealth } from '../../src/wiring/health.js';

export type StateKind = 'memory' | 'redis';

export interface HealthReplica {
  config: Config;
  registry: HealthRegistry;
  door: LocalHealthDoor;
  monitor: HealthMonitor;
  cooling: Cooling;
  budgets: RetryBudgets;
  fallbackShare: FallbackShare;
  metrics: Metrics;
  link: RedisLink | undefined;
  fleetFallbackShare: FleetFallbackShare | undefined;
  fleetRetryBuckets: FleetRetryBuckets | undefined;
  /** Alerts this replica sent, by type. */
  alerts: Alert[];
  /** Deployments this replica probed. */
  probes: string[];
  /** How this replica's probes end. */
  probeAnswer: FailureKind;
  route(name?: string): ResolvedRoute;
  target(name: string, index: number): ResolvedTarget;
  close(): Promise<void>;
}

export function healthConfig(yaml: object): Config {
  return configSchema.parse(yaml);
}

/** One replica; a Redis (or cluster) and a key prefix put it on shared state. */
export async function startReplica(config: Config, redis?: RedisLinkOptions): Promise<HealthReplica> {
  const metrics = new Metrics();
  const link = redis && new RedisLink(redis);
  const alerts: Alert[] = [];
  const probes: string[] = [];
  const replica = {} as HealthReplica;
  const health = buildHealth({
    config: () => config,
    metrics,
    alert: (alert) => alerts.push(alert),
    probe: async (deployment) => {
      probes.push(deployment.key);
      return replica.probeAnswer;
    },
    link,
  });
  if (link && !(await link.ready(5_000))) throw new Error('Redis did not answer');
  Object.assign(replica, {
    config,
    registry: health.registry,
    door: health.door,
    monitor: health.monitor,
    cooling: health.cooling,
    budgets: new RetryBudgets(Date.now, undefined, health.retryBuckets),
    fallbackShare: health.fallbackShare,
    metrics,
    link,
    fleetFallbackShare: health.fleetFallbackShare,
    fleetRetryBuckets: health.retryBuckets,
    alerts,
    probes,
    probeAnswer: 'ok' as FailureKind,
    route: (name = 'chat') => resolveRoute(config, name),
    target: (name: string, index: number) => resolveRoute(config, name).targets[index]!,
    async close() {
      health.close();
      await health.monitor.stop();
      await link?.close();
    },
  });
  return replica;
}

/** Two replicas: on one Redis, or (memory) one replica under both names. */
export async function startReplicas(kind: StateKind, config: Config, redis: () => { url: string }, keyPrefix: string): Promise<[HealthReplica, HealthReplica]> {
  if (kind === 'memory') {
    const only = await startReplica(config);
    return [only, only];
  }
  const { url } = redis();
  return [await startReplica(config, { url, keyPrefix }), await startReplica(config, { url, keyPrefix })];
}

export function attemptRecord(kind: FailureKind, target: ResolvedTarget, extra: Partial<AttemptRecord> = {}): AttemptRecord {
  return { n: 1, connection: target.connectionName, provider: 'mock', model: target.routedModel, kind, startedMs: 0, latencyMs: 1, committed: false, malformedEvents: 0, ...extra };
}

/** Admits (awaiting a trial claim if there is one) and settles at once with `kind`; returns what the door said. */
export async function attemptOn(replica: HealthReplica, target: ResolvedTarget, kind: FailureKind, extra: Partial<AttemptRecord> = {}): Promise<Permit | Out> {
  const answer = await replica.door.admit(target, replica.route(), {});
  if (!answer.out) answer.settle(attemptRecord(kind, target, extra));
  return answer;
}

/**
 * Polls until `check` holds; throws past `timeoutMs`. The bound catches a hang, sized for a loaded
 * CI machine: how soon a replica hears of another's change is not a test's to assert (docs/testing.md).
 */
export async function within(timeoutMs: number, check: () => boolean | Promise<boolean>): Promise<void> {
  const startedAtMs = Date.now();
  while (!(await check())) {
    if (Date.now() - startedAtMs > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
