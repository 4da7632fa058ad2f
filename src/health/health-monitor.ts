import type { Config } from '../config/schema.js';
import type { FailureKind } from '../core/failure-kind.js';
import type { Alert } from '../telemetry/alert-sender.js';
import { BoundedLabels } from '../telemetry/bounded-labels.js';
import type { Metrics } from '../telemetry/metrics.js';
import { configuredDeployments } from './configured-deployments.js';
import type { Cooling } from './cooling.js';
import { DEPLOYMENT_STATES, deploymentState } from './deployment-state.js';
import type { FallbackShare } from './fallback-share.js';
import type { DeploymentHealth, HealthEvents, HealthState } from './health-registry.js';
import { QUOTA_NAMES } from './quota-headers.js';
import { recoveryProbeDueAtMs } from './recovery-probe-due.js';
import { recoveryProbeIntervalMs } from './recovery-probe-interval.js';

const TICK_MS = 1_000;
/**
 * A recovery probe's fleet lease ends this much before the interval does (at most a tenth of it),
 * so that replicas due at the interval's turn, on clocks a few ms apart, find it free rather than
 * all losing it to the lease before and skipping an interval.
 */
const RECOVERY_LEASE_MARGIN_MS = 100;

/** Why a deployment is probed: a structural fault (`probe_interval_s`) or an ejection (`recovery_probe_s`). Each has its own fleet lease. */
export type ProbePurpose = 'structural' | 'recovery';

export interface HealthMonitorDeps {
  registry: () => HealthState;
  cooling: Cooling;
  /** Recent latencies per deployment, dropped with a forgotten deployment. */
  latency: { forget(deploymentKey: string): void };
  fallbackShare: FallbackShare;
  config(): Config;
  metrics: Metrics;
  alert(alert: Alert): void;
  /** Sends one minimal real completion to the deployment; resolves with how it ended. */
  probe(deployment: DeploymentHealth): Promise<FailureKind>;
  /**
   * Whether this replica may probe the deployment for this purpose for `leaseMs` (replicas sharing
   * state send one probe per interval between them); absent: it always may.
   */
  probeLease?(deployment: DeploymentHealth, leaseMs: number, purpose: ProbePurpose): Promise<boolean>;
  now?: () => number;
}

/**
 * Turns health state into action and visibility: runs active probes when due — for structurally
 * faulted deployments (brought back only by a successful probe, never by a timer) and recovery
 * probes for ejected ones (readmitted at the first success, so no caller has to be the trial) —,
 * keeps the state and quota gauges current, and raises alerts on transitions and on long ejections.
 */
export class HealthMonitor implements HealthEvents {
  readonly #deps: HealthMonitorDeps;
  readonly #now: () => number;
  /** Probes in flight, by deployment: one at a time per deployment on this replica. */
  readonly #probing = new Map<string, Promise<void>>();
  /** Counter series of unconfigured deployments: past `direct.max_deployments` names they share `other`. */
  readonly #directLabels: BoundedLabels;
  #timer: NodeJS.Timeout | undefined;
  /** A wake-up for the next recovery probe due before the next tick: probes go out on their interval, not on the tick's. */
  #recoveryWake: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;

  constructor(deps: HealthMonitorDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#directLabels = new BoundedLabels(() => deps.config().direct.max_deployments, 'other');
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.tick(), TICK_MS).unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    clearTimeout(this.#recoveryWake);
    this.#timer = undefined;
    await this.#ticking;
    await Promise.all(this.#probing.values());
  }

  /** One pass: probes that are due, long-ejection alerts, gauges. Exposed for tests. */
  async tick(): Promise<void> {
    const probes: Promise<void>[] = [];
    const nowMs = this.#now();
    for (const deployment of this.#deps.registry().all()) {
      const probe = this.#probeIfDue(deployment, nowMs);
      if (probe) probes.push(probe);
      this.#alertIfOutTooLong(deployment, nowMs);
      this.#updateGauges(deployment);
    }
    this.#checkFallbackShares(nowMs);
    this.#wakeForRecoveryProbes(nowMs);
    this.#ticking = Promise.all(probes).then(() => undefined);
    await this.#ticking;
  }

  /** Starts the deployment's probe if one is due and none is in flight here. */
  #probeIfDue(deployment: DeploymentHealth, nowMs: number): Promise<void> | undefined {
    if (this.#probing.has(deployment.key)) return undefined;
    const structuralDue = deployment.structural.state === 'structural' ? deployment.structural.nextProbeAtMs : undefined;
    if (structuralDue !== undefined) return structuralDue <= nowMs ? this.#track(deployment, this.#runStructuralProbe(deployment)) : undefined;
    const recoveryDue = this.#recoveryProbeDueAtMs(deployment);
    return recoveryDue !== undefined && recoveryDue <= nowMs ? this.#track(deployment, this.#runRecoveryProbe(deployment, nowMs)) : undefined;
  }

  /** A structural fault is probed for that, not for an ejection; a probe in flight here is the one due. */
  #recoveryProbeDueAtMs(deployment: DeploymentHealth): number | undefined {
    if (deployment.structural.state === 'structural' || this.#probing.has(deployment.key)) return undefined;
    return recoveryProbeDueAtMs({
      breaker: deployment.breaker,
      intervalMs: recoveryProbeIntervalMs(this.#deps.config(), deployment.key),
      lastProbeAtMs: deployment.recoveryProbedAtMs,
      coolingUntilMs: this.#deps.cooling.coolingUntil(deployment.key),
    });
  }

  #track(deployment: DeploymentHealth, probe: Promise<void>): Promise<void> {
    const tracked = probe.finally(() => this.#probing.delete(deployment.key));
    this.#probing.set(deployment.key, tracked);
    return tracked;
  }

  /**
   * Once started, wakes for the first recovery probe due before the next tick, which would send
   * it up to a tick late: a readmission should follow a recovery by one interval, not one and a tick.
   */
  #wakeForRecoveryProbes(nowMs: number): void {
    clearTimeout(this.#recoveryWake);
    this.#recoveryWake = undefined;
    if (!this.#timer) return;
    const earliestMs = this.#deps.registry().all().reduce((earliest, deployment) => Math.min(earliest, this.#recoveryProbeDueAtMs(deployment) ?? Infinity), nowMs + TICK_MS);
    if (earliestMs >= nowMs + TICK_MS) return;
    this.#recoveryWake = setTimeout(() => {
      const wokeAtMs = this.#now();
      for (const deployment of this.#deps.registry().all()) void this.#probeIfDue(deployment, wokeAtMs);
      this.#wakeForRecoveryProbes(wokeAtMs);
    }, earliestMs - nowMs).unref();
  }

  /**
   * A transition adopted from another replica is not counted again: the replica that made it
   * counts it. The replica that told of a long ejection tells of its end, whoever's trial ended it.
   */
  onBreaker(deployment: DeploymentHealth, change: { from: string; to: string; reason: string; atMs: number; adopted?: boolean }): void {
    if (change.to === 'ejected' && !change.adopted) this.#deps.metrics.ejections.inc({ deployment: this.#counterLabel(deployment) });
    if (change.to === 'closed' && deployment.longEjectionAlertedForMs !== undefined) {
      deployment.longEjectionAlertedForMs = undefined;
      this.#deps.alert(alertOf('readmitted', deployment, change));
    }
    this.#updateGauges(deployment);
  }

  /** An adopted fault or readmission only moves the gauges: the replica that entered it, or whose probe ended it, alerts and counts. */
  onStructural(deployment: DeploymentHealth, change: { from: string; to: string; cause?: string; reason: string; atMs: number; adopted?: boolean }): void {
    if (change.adopted) {
      if (change.to !== 'structural') deployment.longEjectionAlertedForMs = undefined;
    } else if (change.to === 'structural') {
      this.#deps.metrics.structuralFaults.inc({ deployment: this.#counterLabel(deployment), cause: change.cause ?? 'unknown' });
      this.#deps.alert(alertOf('structural', deployment, change));
    } else {
      deployment.longEjectionAlertedForMs = undefined;
      this.#deps.alert(alertOf('readmitted', deployment, change));
    }
    this.#updateGauges(deployment);
  }

  onStepDown(deployment: DeploymentHealth, stepDown: { quota: string; previousLimit: number; limit: number }): void {
    this.#deps.alert({
      type: 'limit_step_down',
      deployment: deployment.key,
      connection: deployment.connection,
      reason: `${stepDown.quota} limit stepped down from ${stepDown.previousLimit} to ${stepDown.limit} while traffic did not fall`,
      since: new Date(this.#now()).toISOString(),
    });
  }

  /** The registry let go of an unconfigured deployment: its gauges, cooling and latency go with it. */
  onForgotten(deployment: DeploymentHealth): void {
    for (const state of DEPLOYMENT_STATES) this.#deps.metrics.deploymentState.remove({ deployment: deployment.key, state });
    for (const limit of QUOTA_NAMES) this.#deps.metrics.ratelimitRemaining.remove({ deployment: deployment.key, limit });
    this.#deps.cooling.forget(deployment.key);
    this.#deps.latency.forget(deployment.key);
  }

  /**
   * A counter's `deployment` label. Gauges need no folding: they exist only for deployments the
   * registry holds, which it bounds; counters outlive them.
   */
  #counterLabel(deployment: DeploymentHealth): string {
    return configuredDeployments(this.#deps.config()).has(deployment.key) ? deployment.key : this.#directLabels.label(deployment.key);
  }

  async #runStructuralProbe(deployment: DeploymentHealth): Promise<void> {
    if (this.#deps.probeLease && !(await this.#deps.probeLease(deployment, deployment.structural.probeIntervalMs, 'structural'))) {
      deployment.structural.postponeProbe();
      return;
    }
    const kind = await this.#sendProbe(deployment);
    if (kind === 'ok') this.#deps.registry().probeSucceeded(deployment);
    else deployment.structural.postponeProbe();
  }

  /**
   * A failed recovery probe leaves the ejection as it was (docs/health.md): its end stays the
   * time callers may try the deployment again without evidence, and the doubling stays theirs.
   */
  async #runRecoveryProbe(deployment: DeploymentHealth, nowMs: number): Promise<void> {
    // This interval's turn is taken, whichever replica sends the probe.
    deployment.recoveryProbedAtMs = nowMs;
    const intervalMs = recoveryProbeIntervalMs(this.#deps.config(), deployment.key);
    const leaseMs = intervalMs - Math.min(RECOVERY_LEASE_MARGIN_MS, intervalMs / 10);
    if (this.#deps.probeLease && !(await this.#deps.probeLease(deployment, leaseMs, 'recovery'))) return;
    if ((await this.#sendProbe(deployment)) === 'ok') deployment.breaker.readmit();
  }

  async #sendProbe(deployment: DeploymentHealth): Promise<FailureKind> {
    // A probe is a try too. It does not pass the door, so it is noted here, and stays out of the request rate 429s are judged by.
    deployment.lastTriedAtMs = this.#now();
    // A probe the gateway could not even build says nothing of the deployment: it is counted as the
    // gateway's own failure, never left to reject (recovery probes go out every few seconds).
    const kind = await this.#deps.probe(deployment).catch((): FailureKind => 'internal_error');
    this.#deps.metrics.probes.inc({ deployment: this.#counterLabel(deployment), kind });
    return kind;
  }

  #checkFallbackShares(nowMs: number): void {
    const { fallback_share: threshold, fallback_share_for_s: forS } = this.#deps.config().alerts;
    for (const route of this.#deps.fallbackShare.routes()) {
      const share = this.#deps.fallbackShare.share(route, nowMs);
      if (share !== undefined) this.#deps.metrics.fallbackShare.set({ route }, share);
      if (this.#deps.fallbackShare.crossedFor(route, threshold, forS, nowMs)) {
        this.#deps.alert({
          type: 'fallback_share',
          route,
          reason: `${Math.round((share ?? 0) * 100)}% of answers served by fallback targets for ${forS} s (threshold ${Math.round(threshold * 100)}%)`,
          since: new Date(nowMs - forS * 1000).toISOString(),
        });
      }
    }
  }

  #alertIfOutTooLong(deployment: DeploymentHealth, nowMs: number): void {
    const out = deployment.structural.state === 'structural' ? deployment.structural : deployment.breaker.state === 'closed' ? undefined : deployment.breaker;
    // The replica that put it out tells of it lasting too.
    if (!out || out.adopted || deployment.longEjectionAlertedForMs === out.sinceMs) return;
    const outForS = (nowMs - out.sinceMs) / 1000;
    if (outForS < this.#deps.config().alerts.ejected_for_s) return;
    deployment.longEjectionAlertedForMs = out.sinceMs;
    this.#deps.alert({
      type: 'out_too_long',
      deployment: deployment.key,
      connection: deployment.connection,
      new_state: deploymentState(deployment, undefined),
      reason: `out for ${Math.round(outForS)} s: ${out.reason}`,
      since: new Date(out.sinceMs).toISOString(),
    });
  }

  #updateGauges(deployment: DeploymentHealth): void {
    if (deployment.forgotten) return;
    const state = deploymentState(deployment, this.#deps.cooling.coolingUntil(deployment.key));
    for (const candidate of DEPLOYMENT_STATES) {
      this.#deps.metrics.deploymentState.set({ deployment: deployment.key, state: candidate }, candidate === state ? 1 : 0);
    }
    for (const name of QUOTA_NAMES) {
      const remaining = deployment.quota?.[name]?.remaining;
      if (remaining !== undefined) this.#deps.metrics.ratelimitRemaining.set({ deployment: deployment.key, limit: name }, remaining);
    }
  }
}

/** Alerts speak of states as `/admin/health` does: a deployment with no fault is `healthy`. */
function stateName(state: string): string {
  return state === 'clear' || state === 'closed' ? 'healthy' : state;
}

function alertOf(type: string, deployment: DeploymentHealth, change: { from: string; to: string; reason: string; atMs: number }): Alert {
  return {
    type,
    deployment: deployment.key,
    connection: deployment.connection,
    old_state: stateName(change.from),
    new_state: stateName(change.to),
    reason: change.reason,
    since: new Date(change.atMs).toISOString(),
  };
}
