import type { BreakerTransition } from '../health/breaker.js';
import type { Cooling, SharedCooling } from '../health/cooling.js';
import type { TrialClaims } from '../health/health-door.js';
import type { ProbePurpose } from '../health/health-monitor.js';
import type { DeploymentHealth, HealthEvents, HealthRegistry } from '../health/health-registry.js';
import type { LimitStepDown } from '../health/limit-step-down.js';
import type { StructuralTransition } from '../health/structural-fault.js';
import { healthScripts, type HealthScripts } from './health-scripts.js';
import type { RedisLink } from './redis-link.js';
import {
  CHANNEL,
  healthKey,
  readDeploymentHealth,
  RECORD_TTL_S,
  wholeMs,
  type BreakerRecord,
  type DeploymentRecord,
  type Generation,
  type HealthMessage,
  type StructuralRecord,
} from './shared-health-records.js';
import { SharedConnectionFaults } from './shared-connection-faults.js';
import { SharedLeases } from './shared-leases.js';
import { SharedQuotas } from './shared-quotas.js';

/**
 * After a resync the records are read once more, this much later. Another replica's resync may
 * push what it decided during the outage just after this one read, and its announcement can be
 * lost on the way: a Redis Cluster forwards a publish over links between nodes that are still
 * reconnecting after the outage, and drops it meanwhile.
 */
const RELOAD_AFTER_RESYNC_MS = 2_000;

export interface SharedHealthDeps {
  link: RedisLink;
  registry: () => HealthRegistry;
  cooling: Cooling;
  /** Where transitions go once the fleet has decided them: the health monitor. */
  events: HealthEvents;
}

/**
 * Deployment health shared by replicas through Redis. Each replica keeps reading its own copy
 * (the registry's breakers and structural faults, the cooling table): nothing here is on the
 * ordinary request path. What a replica decides — a trip, a trial's end, a structural fault
 * entered or left — is sent to Redis as one atomic step and published from it; every replica
 * adopts what it hears. Failure counts stay with each replica. The half-open trial and the
 * active probe are leases in Redis, so the fleet sends one of each. While Redis is down every
 * call falls back to the local copy, and the changes made meanwhile are pushed on its return.
 *
 * It stands between the registry and the monitor (a `HealthEvents`): a transition reaches the
 * monitor (alerts, counters) only once it stands fleet-wide, and an adopted one only moves gauges.
 */
export class SharedHealth implements HealthEvents, TrialClaims {
  readonly #deps: SharedHealthDeps;
  readonly #link: RedisLink;
  readonly #scripts: HealthScripts;
  /** The generation of each shared record this replica last took over (`breaker:<key>`, `structural:<key>`). */
  readonly #generations = new Map<string, number>();
  /** Records this replica changed while Redis was down: pushed on its return. */
  readonly #changedLocally = new Set<string>();
  readonly #connectionFaults: SharedConnectionFaults;
  readonly #leases: SharedLeases;
  readonly #quotas: SharedQuotas;

  constructor(deps: SharedHealthDeps) {
    this.#deps = deps;
    this.#link = deps.link;
    this.#scripts = healthScripts(deps.link.commands);
    this.#quotas = new SharedQuotas(deps.link);
    this.#leases = new SharedLeases(deps.link, this.#scripts);
    this.#connectionFaults = new SharedConnectionFaults(deps.link, deps.registry);
    deps.link.subscribe(CHANNEL, (message) => this.#heard(message));
    deps.link.onResync(() => this.#resync());
  }

  // ---- HealthEvents: decided here, then on to the monitor ----

  onBreaker(deployment: DeploymentHealth, change: BreakerTransition): void {
    // A half-open turn here follows a claim Redis granted (or no Redis): nothing more to agree.
    if (change.adopted || change.to === 'half_open') return this.#deps.events.onBreaker(deployment, change);
    const recordKey = `breaker:${deployment.key}`;
    if (!this.#link.up) return this.#keptLocally(recordKey, () => this.#deps.events.onBreaker(deployment, change));
    const settings = deployment.breaker.settings;
    this.#scripts
      .breakerTransition(
        this.#keyOf(deployment.key, 'breaker'),
        this.#keyOf(deployment.key, 'trial'),
        change.to === 'ejected' ? 'trip' : change.byProbe ? 'readmit' : 'close',
        this.#generations.get(recordKey) ?? 0,
        change.reason,
        settings.eject_base_s,
        settings.eject_max_s,
        RECORD_TTL_S,
        this.#link.key(CHANNEL),
        deployment.key,
        deployment.breaker.ejectedBy ?? '',
      )
      .then(
        ([won, encoded]) => {
          this.#adoptBreaker(deployment, JSON.parse(encoded) as BreakerRecord);
          this.#deps.events.onBreaker(deployment, won === 1 ? change : { ...change, adopted: true });
        },
        () => this.#keptLocally(recordKey, () => this.#deps.events.onBreaker(deployment, change)),
      )
      .catch(() => undefined);
  }

  onStructural(deployment: DeploymentHealth, change: StructuralTransition): void {
    if (change.adopted) return this.#deps.events.onStructural(deployment, change);
    const recordKey = `structural:${deployment.key}`;
    this.#connectionFaults.share(deployment, change);
    if (!this.#link.up) return this.#keptLocally(recordKey, () => this.#deps.events.onStructural(deployment, change));
    this.#scripts
      .structuralTransition(
        this.#keyOf(deployment.key, 'structural'),
        change.to === 'structural' ? 'enter' : 'clear',
        change.cause,
        change.reason,
        RECORD_TTL_S,
        this.#link.key(CHANNEL),
        deployment.key,
      )
      .then(
        ([won, encoded]) => {
          this.#adoptStructural(deployment, JSON.parse(encoded) as StructuralRecord);
          this.#deps.events.onStructural(deployment, won === 1 ? change : { ...change, adopted: true });
        },
        () => this.#keptLocally(recordKey, () => this.#deps.events.onStructural(deployment, change)),
      )
      .catch(() => undefined);
  }

  onStepDown(deployment: DeploymentHealth, stepDown: LimitStepDown): void {
    this.#deps.events.onStepDown(deployment, stepDown);
  }

  onForgotten(deployment: DeploymentHealth): void {
    this.#leases.trialEnded(deployment.key);
    for (const recordKey of [`breaker:${deployment.key}`, `structural:${deployment.key}`]) {
      this.#generations.delete(recordKey);
      this.#changedLocally.delete(recordKey);
    }
    this.#deps.events.onForgotten(deployment);
  }

  /** What the fleet knows of a deployment this replica has just met. */
  onCreated(deployment: DeploymentHealth): void {
    if (this.#link.up) this.#load([deployment]).catch(() => undefined);
  }

  /** Providers send quota headers on every answer: the latest snapshot is shared about once a second. */
  onQuota(deployment: DeploymentHealth): void {
    this.#quotas.changed(deployment);
  }

  // ---- The half-open trial and the probe: leases ----

  claim(deployment: DeploymentHealth): boolean | Promise<boolean> {
    return this.#leases.claim(deployment, (record) => this.#adoptBreaker(deployment, record));
  }

  release(deployment: DeploymentHealth): void {
    this.#leases.release(deployment);
  }

  probeLease(deployment: DeploymentHealth, leaseMs: number, purpose: ProbePurpose): Promise<boolean> {
    return this.#leases.probeLease(deployment, leaseMs, purpose);
  }

  // ---- Cooling ----

  /**
   * Tells the fleet of cooling set on this replica (the `Cooling`'s `onCooled`). The cooling's key
   * holds its length and cause, so a replica that loads it later knows why and since when.
   */
  shareCooling(key: string, shared: Required<SharedCooling>): void {
    if (!this.#link.up) return;
    const coolingMs = wholeMs(shared.coolingMs);
    this.#scripts
      .cool(this.#keyOf(key, 'cooling'), coolingMs, this.#link.key(CHANNEL), key, this.#link.replicaId, JSON.stringify({ ...shared, coolingMs }))
      .catch(() => undefined);
  }

  // ---- Hearing and adopting ----

  /** A message this replica cannot read (another version's, say) is dropped: the next resync makes good what it said. */
  #heard(raw: string): void {
    try {
      this.#apply(JSON.parse(raw) as HealthMessage);
    } catch {
      return;
    }
  }

  #apply(message: HealthMessage): void {
    const registry = this.#deps.registry();
    if (message.kind === 'connection') return registry.adoptConnectionFault(message.connection, message.fault ?? undefined);
    if (message.kind === 'trial_free') {
      this.#leases.trialEnded(message.key);
      return;
    }
    if (message.kind === 'cooling') {
      if (message.from !== this.#link.replicaId) this.#deps.cooling.adopt(message.key, message.coolingMs, { coolingMs: message.coolingMs, cause: message.cause });
      return;
    }
    const deployment = registry.find(message.key) ?? registry.configured().find((candidate) => candidate.key === message.key);
    if (!deployment) return;
    if (message.kind === 'breaker') this.#adoptBreaker(deployment, message.record);
    else if (message.kind === 'structural') this.#adoptStructural(deployment, message.record);
    else if (message.from !== this.#link.replicaId) deployment.quota = message.snapshot;
  }

  /** Takes a record over unless this replica already holds that generation or a later one. */
  #adoptBreaker(deployment: DeploymentHealth, record: BreakerRecord): void {
    if (!this.#newer(`breaker:${deployment.key}`, record.gen)) return;
    // A new state means the trial (if any) has ended.
    if (record.state !== 'half_open') this.#leases.trialEnded(deployment.key);
    deployment.breaker.adopt(record);
  }

  #adoptStructural(deployment: DeploymentHealth, record: StructuralRecord): void {
    if (!this.#newer(`structural:${deployment.key}`, record.gen)) return;
    deployment.structural.adopt(record);
  }

  #newer(recordKey: string, gen: number): boolean {
    if (gen <= (this.#generations.get(recordKey) ?? 0)) return false;
    this.#generations.set(recordKey, gen);
    return true;
  }

  #keptLocally(recordKey: string, tell: () => void): void {
    this.#changedLocally.add(recordKey);
    tell();
  }

  // ---- Loading and reconciling ----

  #keyOf(deployment: string, record: DeploymentRecord): string {
    return healthKey(this.#link, deployment, record);
  }

  /** Takes over the shared records of these deployments (and their connections' faults, cooling and quotas). */
  async #load(deployments: readonly DeploymentHealth[], afterOutage = false): Promise<void> {
    if (deployments.length === 0) return;
    const stored = await readDeploymentHealth(this.#link, deployments);
    const registry = this.#deps.registry();
    deployments.forEach((deployment, index) => {
      const { breaker, structural, connectionFault, cooling, quota } = stored[index]!;
      if (afterOutage) {
        // Generations may have started again (an emptied Redis): what Redis holds now is the reference.
        this.#generations.delete(`breaker:${deployment.key}`);
        this.#generations.delete(`structural:${deployment.key}`);
      }
      if (breaker) this.#adoptBreaker(deployment, breaker);
      if (structural) this.#adoptStructural(deployment, structural);
      if (connectionFault && registry.connectionFault(deployment.connection) === undefined) registry.adoptConnectionFault(deployment.connection, connectionFault);
      if (cooling) this.#deps.cooling.adopt(deployment.key, cooling.leftMs, cooling.shared);
      if (quota) deployment.quota = quota;
    });
  }

  /**
   * Redis is back: what this replica decided meanwhile replaces the shared records (a later
   * generation, published), and every other record is taken over from Redis. Throws if Redis goes
   * away again, so the link stays down and tries again.
   */
  async #resync(): Promise<void> {
    const registry = this.#deps.registry();
    registry.configured();
    const deployments = registry.all();
    for (const deployment of deployments) {
      for (const [kind, state, outOfDefault] of [
        ['breaker', deployment.breaker.snapshot(), deployment.breaker.state !== 'closed'],
        ['structural', deployment.structural.snapshot(), deployment.structural.state !== 'clear'],
      ] as const) {
        const recordKey = `${kind}:${deployment.key}`;
        const key = this.#keyOf(deployment.key, kind);
        // A Redis that came back empty must not forget an ejection or fault still in force here.
        const push = this.#changedLocally.has(recordKey) || (outOfDefault && (await this.#link.commands.exists(key)) === 0);
        if (!push) continue;
        const encoded = await this.#scripts.putRecord(key, JSON.stringify(state), RECORD_TTL_S, this.#link.key(CHANNEL), kind, deployment.key);
        this.#changedLocally.delete(recordKey);
        this.#generations.set(recordKey, (JSON.parse(encoded) as Generation).gen);
      }
    }
    await this.#connectionFaults.pushChanged(deployments);
    await this.#load(deployments, true);
    setTimeout(() => {
      if (this.#link.up) this.#load(this.#deps.registry().all(), true).catch(() => undefined);
    }, RELOAD_AFTER_RESYNC_MS).unref();
  }
}
