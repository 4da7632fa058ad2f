import { DEFAULT_ROUTE_HEALTH, type Config, type RouteHealthConfig } from '../config/schema.js';
import type { FailureKind } from '../core/failure-kind.js';
import { FAILURE_POLICY, isStructuralKind, type StructuralKind } from '../core/failure-policy.js';
import type { ResponseHeaders } from '../providers/spec.js';
import { configuredDeployments } from './configured-deployments.js';
import { Breaker, type BreakerPermit, type BreakerTransition } from './breaker.js';
import { breakerOutcomeOf } from './breaker-outcome.js';
import { deploymentKey } from '../core/deployment-key.js';
import { LimitStepDownDetector, type LimitStepDown } from './limit-step-down.js';
import { parseQuotaHeaders, type QuotaSnapshot } from './quota-headers.js';
import { StructuralFault, type StructuralTransition } from './structural-fault.js';

/** Everything known about one deployment (connection × upstream model). */
export interface DeploymentHealth {
  key: string;
  connection: string;
  model: string;
  breaker: Breaker;
  structural: StructuralFault;
  lastError?: { kind: FailureKind; message: string; atMs: number };
  /** When this process last sent it a request (a caller's, the gateway's own, or a probe). */
  lastTriedAtMs?: number;
  quota?: QuotaSnapshot;
  /** When this replica last took a recovery probe's turn (sent it, or found another replica held it); the monitor's. */
  recoveryProbedAtMs?: number;
  /** When an alert for a long ejection was last sent for the current episode. */
  longEjectionAlertedForMs?: number;
  /** Dropped from the registry (an attempt still in flight may hold it): nothing new is published for it. */
  forgotten?: boolean;
}

export interface HealthEvents {
  onBreaker(deployment: DeploymentHealth, change: BreakerTransition): void;
  onStructural(deployment: DeploymentHealth, change: StructuralTransition): void;
  onStepDown(deployment: DeploymentHealth, stepDown: LimitStepDown): void;
  /** An unconfigured deployment was dropped to stay within `direct.max_deployments`. */
  onForgotten(deployment: DeploymentHealth): void;
  /** A deployment was seen for the first time (shared state loads what other replicas know of it). */
  onCreated?(deployment: DeploymentHealth): void;
  /** The deployment's quota snapshot was replaced by a response's headers. */
  onQuota?(deployment: DeploymentHealth): void;
}

/**
 * What the attempt loop, the monitor and the admin API need of health state. This process's
 * in-memory `HealthRegistry` is one implementation; a shared one (Redis, for replicas) is another.
 */
export interface HealthState {
  deployment(connection: string, model: string, routeHealth: RouteHealthConfig, globalHealth: Config['health']): DeploymentHealth;
  all(): DeploymentHealth[];
  /** The deployment under `connection/model`, if it has been made. */
  find(key: string): DeploymentHealth | undefined;
  dispatched(deployment: DeploymentHealth): void;
  settled(deployment: DeploymentHealth, permit: BreakerPermit, kind: FailureKind, message: string | undefined): void;
  observeHeaders(deployment: DeploymentHealth, headers: ResponseHeaders): void;
  keyRejected(connection: string): boolean;
  probeSucceeded(deployment: DeploymentHealth): void;
}

/**
 * Health state that outlives a request (docs/health.md), per deployment, shared by all requests and kept
 * across config reloads (keyed by `connection/model`; settings are re-applied on use). The
 * attempt loop asks it who may be tried and tells it how each attempt ended.
 *
 * Deployments the config's routes name are kept for good. Those reached only through the direct
 * `connection/model` form — names callers make up — are kept up to `direct.max_deployments`,
 * the least recently used forgotten first, so no stream of new names can grow it without bound.
 */
export class HealthRegistry implements HealthState {
  readonly #deployments = new Map<string, DeploymentHealth>();
  /** The unconfigured ones, least recently used first. */
  readonly #unconfigured = new Map<string, DeploymentHealth>();
  readonly #config: () => Config;
  readonly #now: () => number;
  readonly #events: HealthEvents;
  readonly #stepDowns = new LimitStepDownDetector();
  /**
   * Connections with a fault of connection scope (a rejected key), and which: every deployment on
   * them, even one not yet used, is out.
   */
  readonly #connectionFaults = new Map<string, StructuralKind>();

  constructor(events: HealthEvents, options: { config(): Config; now?: () => number }) {
    this.#events = events;
    this.#config = options.config;
    this.#now = options.now ?? Date.now;
  }

  /** The deployment's state, created on first use, with the settings of the route at hand. */
  deployment(connection: string, model: string, routeHealth: RouteHealthConfig, globalHealth: Config['health']): DeploymentHealth {
    const key = deploymentKey(connection, model);
    const structuralSettings = {
      persist_429_s: routeHealth.persist_429_s ?? globalHealth.persist_429_s,
      probe_interval_s: routeHealth.probe_interval_s ?? globalHealth.probe_interval_s,
    };
    let deployment = this.#deployments.get(key);
    if (!deployment) {
      const created: DeploymentHealth = {
        key,
        connection,
        model,
        breaker: new Breaker(routeHealth, this.#now, (change) => this.#events.onBreaker(created, change)),
        structural: new StructuralFault(structuralSettings, this.#now, (change) => this.#events.onStructural(created, change)),
      };
      this.#deployments.set(key, created);
      const connectionFault = this.#connectionFaults.get(connection);
      if (connectionFault !== undefined) created.structural.enter(connectionFault);
      deployment = created;
      this.#events.onCreated?.(created);
    } else {
      deployment.breaker.configure(routeHealth);
      deployment.structural.configure(structuralSettings);
    }
    this.#markUsed(deployment);
    return deployment;
  }

  #markUsed(deployment: DeploymentHealth): void {
    const config = this.#config();
    this.#unconfigured.delete(deployment.key);
    if (configuredDeployments(config).has(deployment.key)) return;
    this.#unconfigured.set(deployment.key, deployment);
    for (const [key, oldest] of this.#unconfigured) {
      if (this.#unconfigured.size <= config.direct.max_deployments) break;
      this.#unconfigured.delete(key);
      this.#deployments.delete(key);
      oldest.forgotten = true;
      this.#events.onForgotten(oldest);
    }
  }

  /** Every deployment seen so far. */
  all(): DeploymentHealth[] {
    return [...this.#deployments.values()];
  }

  find(key: string): DeploymentHealth | undefined {
    return this.#deployments.get(key);
  }

  /**
   * Every deployment the config's routes name, created now if no request has used it yet: what
   * another replica learns of a deployment applies here before this replica's first request to it.
   */
  configured(): DeploymentHealth[] {
    const config = this.#config();
    return Object.values(config.routes).flatMap((route) =>
      route.targets.map((target) => this.deployment(target.connection, target.model, route.health ?? DEFAULT_ROUTE_HEALTH, config.health)),
    );
  }

  /** The connection fault in force (a rejected key), if any. */
  connectionFault(connection: string): StructuralKind | undefined {
    return this.#connectionFaults.get(connection);
  }

  /**
   * A connection fault another replica entered (`fault`) or cleared by a probe (undefined): every
   * deployment of the connection here takes it over, and so do those first used later.
   */
  adoptConnectionFault(connection: string, fault: { cause: StructuralKind; reason: string; sinceMs: number } | undefined): void {
    const previous = this.#connectionFaults.get(connection);
    if (fault) this.#connectionFaults.set(connection, fault.cause);
    else this.#connectionFaults.delete(connection);
    for (const other of this.#deployments.values()) {
      if (other.connection !== connection) continue;
      if (fault) other.structural.adopt({ state: 'structural', ...fault });
      else if (previous !== undefined && other.structural.cause === previous) {
        other.structural.adopt({ state: 'clear', cause: previous, reason: 'readmitted by a successful active probe on another replica', sinceMs: this.#now() });
      }
    }
  }

  /** An attempt is about to be sent. */
  dispatched(deployment: DeploymentHealth): void {
    deployment.lastTriedAtMs = this.#now();
    deployment.structural.requestSent();
  }

  /** An attempt has ended (a stream: when it ended); `permit` is what the breaker handed out. */
  settled(deployment: DeploymentHealth, permit: BreakerPermit, kind: FailureKind, message: string | undefined): void {
    deployment.breaker.record(permit, breakerOutcomeOf(kind), kind === 'ok' ? undefined : kind);
    if (kind !== 'ok') deployment.lastError = { kind, message: message ?? kind, atMs: this.#now() };
    if (isStructuralKind(kind) && FAILURE_POLICY[kind].structural === 'connection') {
      this.#connectionFaults.set(deployment.connection, kind);
      for (const other of this.#deployments.values()) {
        if (other.connection === deployment.connection) other.structural.enter(kind);
      }
      return;
    }
    deployment.structural.record(kind);
  }

  /** Whether the connection's key was rejected and no probe has shown it works since. */
  keyRejected(connection: string): boolean {
    return this.#connectionFaults.get(connection) === 'credential';
  }

  /** A probe succeeded: the deployment is back, and if its fault was the connection's, the whole connection is. */
  probeSucceeded(deployment: DeploymentHealth): void {
    const connectionFault = this.#connectionFaults.get(deployment.connection);
    const wasConnectionFault = connectionFault !== undefined && deployment.structural.cause === connectionFault;
    // The connection is clear before the first deployment says so: whoever hears that sees the whole connection back.
    if (wasConnectionFault) this.#connectionFaults.delete(deployment.connection);
    deployment.structural.probeSucceeded();
    if (!wasConnectionFault) return;
    for (const other of this.#deployments.values()) {
      if (other.connection === deployment.connection && other.structural.cause === connectionFault) other.structural.probeSucceeded();
    }
  }

  /** Rate-limit headers of any response (success or not), and the traffic that step-downs are judged by. */
  observeHeaders(deployment: DeploymentHealth, headers: ResponseHeaders): void {
    const nowMs = this.#now();
    const snapshot = parseQuotaHeaders(headers, nowMs);
    if (snapshot) {
      deployment.quota = snapshot;
      this.#events.onQuota?.(deployment);
    }
    for (const stepDown of this.#stepDowns.observe(deployment.key, snapshot, nowMs)) this.#events.onStepDown(deployment, stepDown);
  }
}
