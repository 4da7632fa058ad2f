import type { SharedBreakerState, BreakerTransition } from '../health/breaker.js';
import type { Cooling, CoolingCause, SharedCooling } from '../health/cooling.js';
import type { TrialClaims } from '../health/health-door.js';
import type { ProbePurpose } from '../health/health-monitor.js';
import type { DeploymentHealth, HealthEvents, HealthRegistry } from '../health/health-registry.js';
import type { LimitStepDown } from '../health/limit-step-down.js';
import type { QuotaSnapshot } from '../health/quota-headers.js';
import type { SharedStructuralState, StructuralTransition } from '../health/structural-fault.js';
import { FAILURE_POLICY, type StructuralKind } from '../core/failure-policy.js';
import { healthScripts, type HealthScripts } from './health-scripts.js';
import type { RedisLink } from './redis-link.js';
import { taggedKey } from './tagged-key.js';

const CHANNEL = 'health';
/** Records of deployments nobody uses any more go after a day; every change renews them. */
const RECORD_TTL_S = 86_400;
/**
 * How long a claimed half-open trial stays claimed if its holder never says how it ended (the
 * replica died): then another replica may send the trial. Longer than a trial request should take.
 */
export const TRIAL_LEASE_MS = 30_000;
/** The key of each kind of probe lease (`health:{<deployment>}:<name>`). */
const PROBE_LEASES: Readonly<Record<ProbePurpose, string>> = { structural: 'probe', recovery: 'recovery-probe' };
/** How often a changed quota snapshot is shared: what `/admin/health` shows of another replica's view is at most this old. */
const QUOTA_SHARE_MS = 1_000;
/**
 * After a resync the records are read once more, this much later. Another replica's resync may
 * push what it decided during the outage just after this one read, and its announcement can be
 * lost on the way: a Redis Cluster forwards a publish over links between nodes that are still
 * reconnecting after the outage, and drops it meanwhile.
 */
const RELOAD_AFTER_RESYNC_MS = 2_000;

type Generation = { gen: number };
type BreakerRecord = SharedBreakerState & Generation;
type StructuralRecord = SharedStructuralState & Generation;
type ConnectionFault = { cause: StructuralKind; reason: string; sinceMs: number };

type Message =
  | { kind: 'breaker'; key: string; record: BreakerRecord }
  | { kind: 'structural'; key: string; record: StructuralRecord }
  | { kind: 'connection'; connection: string; fault: ConnectionFault | null }
  | { kind: 'trial_free'; key: string }
  // `cause` is absent from replicas of older versions.
  | { kind: 'cooling'; key: string; coolingMs: number; cause?: CoolingCause; from: string }
  | { kind: 'quota'; key: string; snapshot: QuotaSnapshot; from: string };

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
  readonly #changedConnections = new Set<string>();
  /**
   * Deployments whose trial another replica holds, until when its lease runs: admits here say
   * out without asking Redis again, until the trial's outcome (or its release) is heard.
   */
  readonly #trialHeldElsewhereUntilMs = new Map<string, number>();
  /** Deployments whose quota snapshot changed since it was last shared. */
  readonly #quotaToShare = new Map<string, DeploymentHealth>();
  #quotaTimer: NodeJS.Timeout | undefined;

  constructor(deps: SharedHealthDeps) {
    this.#deps = deps;
    this.#link = deps.link;
    this.#scripts = healthScripts(deps.link.commands);
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
    this.#shareConnectionFault(deployment, change);
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
    this.#trialHeldElsewhereUntilMs.delete(deployment.key);
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

  /** Providers send quota headers on every answer: the latest snapshot per deployment is shared once per `QUOTA_SHARE_MS`. */
  onQuota(deployment: DeploymentHealth): void {
    if (!this.#link.up || !deployment.quota) return;
    this.#quotaToShare.set(deployment.key, deployment);
    this.#quotaTimer ??= setTimeout(() => this.#shareQuotas(), QUOTA_SHARE_MS).unref();
  }

  /** One transaction per deployment: on a cluster each deployment's keys live in a slot of their own. */
  #shareQuotas(): void {
    this.#quotaTimer = undefined;
    if (!this.#link.up) return this.#quotaToShare.clear();
    for (const deployment of this.#quotaToShare.values()) {
      if (!deployment.quota) continue;
      const message: Message = { kind: 'quota', key: deployment.key, snapshot: deployment.quota, from: this.#link.replicaId };
      this.#link.commands
        .multi()
        .set(this.#keyOf(deployment.key, 'quota'), JSON.stringify(deployment.quota), 'EX', RECORD_TTL_S)
        .publish(this.#link.key(CHANNEL), JSON.stringify(message))
        .exec()
        .catch(() => undefined);
    }
    this.#quotaToShare.clear();
  }

  // ---- The half-open trial and the probe: leases ----

  claim(deployment: DeploymentHealth): boolean | Promise<boolean> {
    if (!this.#link.up) return true;
    if ((this.#trialHeldElsewhereUntilMs.get(deployment.key) ?? 0) > Date.now()) return false;
    return this.#scripts
      .claimTrial(
        this.#keyOf(deployment.key, 'breaker'),
        this.#keyOf(deployment.key, 'trial'),
        this.#link.replicaId,
        TRIAL_LEASE_MS,
        RECORD_TTL_S,
        this.#link.key(CHANNEL),
        deployment.key,
      )
      .then(([granted, encoded, leaseLeftMs]) => {
        if (encoded !== '') this.#adoptBreaker(deployment, JSON.parse(encoded) as BreakerRecord);
        if (leaseLeftMs > 0) this.#trialHeldElsewhereUntilMs.set(deployment.key, Date.now() + leaseLeftMs);
        return granted === 1;
      })
      .catch(() => true);
  }

  release(deployment: DeploymentHealth): void {
    if (!this.#link.up) return;
    this.#scripts.releaseTrial(this.#keyOf(deployment.key, 'trial'), this.#link.replicaId, this.#link.key(CHANNEL), deployment.key).catch(() => undefined);
  }

  /**
   * Whether this replica sends this interval's probe: the first to ask wins it for `leaseMs`. A
   * structural probe and a recovery probe hold leases of their own: the long one of a structural
   * probe that readmitted the deployment must not hold off the recovery probes of its ejection.
   */
  async probeLease(deployment: DeploymentHealth, leaseMs: number, purpose: ProbePurpose): Promise<boolean> {
    if (!this.#link.up) return true;
    try {
      const set = await this.#link.commands.set(this.#keyOf(deployment.key, PROBE_LEASES[purpose]), this.#link.replicaId, 'PX', wholeMs(leaseMs), 'NX');
      return set === 'OK';
    } catch {
      return true;
    }
  }

  // ---- Cooling ----

  /** The cooling's key holds its length and cause, so a replica that loads it later knows why and since when. */
  /** Tells the fleet of cooling set on this replica (the `Cooling`'s `onCooled`). */
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
      this.#apply(JSON.parse(raw) as Message);
    } catch {
      return;
    }
  }

  #apply(message: Message): void {
    const registry = this.#deps.registry();
    if (message.kind === 'connection') return registry.adoptConnectionFault(message.connection, message.fault ?? undefined);
    if (message.kind === 'trial_free') {
      this.#trialHeldElsewhereUntilMs.delete(message.key);
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
    if (record.state !== 'half_open') this.#trialHeldElsewhereUntilMs.delete(deployment.key);
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

  /** A rejected key puts every deployment of its connection out, on every replica, even ones not used yet. */
  #shareConnectionFault(deployment: DeploymentHealth, change: StructuralTransition): void {
    if (change.cause === 'persistent_429' || FAILURE_POLICY[change.cause].structural !== 'connection') return;
    const registry = this.#deps.registry();
    const entered = change.to === 'structural' && registry.connectionFault(deployment.connection) === change.cause;
    const cleared = change.to === 'clear' && registry.connectionFault(deployment.connection) === undefined;
    if (!entered && !cleared) return;
    if (!this.#link.up) {
      this.#changedConnections.add(deployment.connection);
      return;
    }
    this.#pushConnection(deployment.connection, entered ? { cause: change.cause, reason: change.reason, sinceMs: change.atMs } : undefined).catch(() =>
      this.#changedConnections.add(deployment.connection),
    );
  }

  async #pushConnection(connection: string, fault: ConnectionFault | undefined): Promise<void> {
    const key = this.#link.key(`health:connection:${connection}`);
    const message: Message = { kind: 'connection', connection, fault: fault ?? null };
    const steps = this.#link.commands.multi();
    if (fault) steps.set(key, JSON.stringify(fault), 'EX', RECORD_TTL_S);
    else steps.del(key);
    await steps.publish(this.#link.key(CHANNEL), JSON.stringify(message)).exec();
  }

  // ---- Loading and reconciling ----

  /** A key of one deployment's shared health: all of them under its hash tag. */
  #keyOf(deployment: string, record: 'breaker' | 'trial' | 'structural' | 'cooling' | 'quota' | (typeof PROBE_LEASES)[ProbePurpose]): string {
    return taggedKey(this.#link, 'health', deployment, record);
  }

  /** Takes over the shared records of these deployments (and their connections' faults, cooling and quotas). */
  async #load(deployments: readonly DeploymentHealth[], afterOutage = false): Promise<void> {
    if (deployments.length === 0) return;
    const commands = this.#link.commands;
    // One call per key, not one pipeline: on a cluster they live in different slots (and nodes).
    const reads = await Promise.all(
      deployments.map((deployment) =>
        Promise.all([
          commands.get(this.#keyOf(deployment.key, 'breaker')),
          commands.get(this.#keyOf(deployment.key, 'structural')),
          commands.get(this.#link.key(`health:connection:${deployment.connection}`)),
          commands.pttl(this.#keyOf(deployment.key, 'cooling')),
          commands.get(this.#keyOf(deployment.key, 'cooling')),
          commands.get(this.#keyOf(deployment.key, 'quota')),
        ]),
      ),
    );
    const registry = this.#deps.registry();
    deployments.forEach((deployment, index) => {
      const [breaker, structural, connection, coolingLeftMs, cooling, quota] = reads[index]!;
      if (afterOutage) {
        // Generations may have started again (an emptied Redis): what Redis holds now is the reference.
        this.#generations.delete(`breaker:${deployment.key}`);
        this.#generations.delete(`structural:${deployment.key}`);
      }
      const breakerRecord = parsed<BreakerRecord>(breaker);
      if (breakerRecord) this.#adoptBreaker(deployment, breakerRecord);
      const structuralRecord = parsed<StructuralRecord>(structural);
      if (structuralRecord) this.#adoptStructural(deployment, structuralRecord);
      const connectionFault = parsed<ConnectionFault>(connection);
      if (connectionFault && registry.connectionFault(deployment.connection) === undefined) registry.adoptConnectionFault(deployment.connection, connectionFault);
      if (typeof coolingLeftMs === 'number' && coolingLeftMs > 0) {
        // An older version stored no length or cause: then all that is known is what is left.
        const shared = parsed<Partial<SharedCooling>>(cooling);
        this.#deps.cooling.adopt(deployment.key, coolingLeftMs, { coolingMs: shared?.coolingMs ?? coolingLeftMs, cause: shared?.cause });
      }
      const quotaSnapshot = parsed<QuotaSnapshot>(quota);
      if (quotaSnapshot) deployment.quota = quotaSnapshot;
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
    for (const connection of this.#changedConnections) {
      const cause = registry.connectionFault(connection);
      const deployment = deployments.find((candidate) => candidate.connection === connection && candidate.structural.cause === cause);
      await this.#pushConnection(connection, cause && deployment ? { cause, reason: deployment.structural.reason, sinceMs: deployment.structural.sinceMs } : undefined);
      this.#changedConnections.delete(connection);
    }
    await this.#load(deployments, true);
    setTimeout(() => {
      if (this.#link.up) this.#load(this.#deps.registry().all(), true).catch(() => undefined);
    }, RELOAD_AFTER_RESYNC_MS).unref();
  }
}

/** Redis expiries are whole milliseconds, and at least one. */
function wholeMs(ms: number): number {
  return Math.max(1, Math.ceil(ms));
}

/** A stored JSON value, or undefined when there is none or it does not parse (it is then left to be overwritten). */
function parsed<Value>(stored: unknown): Value | undefined {
  if (typeof stored !== 'string') return undefined;
  try {
    return JSON.parse(stored) as Value;
  } catch {
    return undefined;
  }
}
