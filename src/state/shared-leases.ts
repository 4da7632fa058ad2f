import type { ProbePurpose } from '../health/health-monitor.js';
import type { DeploymentHealth } from '../health/health-registry.js';
import type { HealthScripts } from './health-scripts.js';
import type { RedisLink } from './redis-link.js';
import { CHANNEL, healthKey, PROBE_LEASES, RECORD_TTL_S, wholeMs, type BreakerRecord } from './shared-health-records.js';

/**
 * How long a claimed half-open trial stays claimed if its holder never says how it ended (the
 * replica died): then another replica may send the trial. Longer than a trial request should take.
 */
const TRIAL_LEASE_MS = 30_000;

/** The half-open trial and the probes as leases in Redis, so the fleet sends one of each. While Redis is down every claim is granted. */
export class SharedLeases {
  readonly #link: RedisLink;
  readonly #scripts: HealthScripts;
  /**
   * Deployments whose trial another replica holds, until when its lease runs: claims here say
   * no without asking Redis again, until the trial's outcome (or its release) is heard.
   */
  readonly #trialHeldElsewhereUntilMs = new Map<string, number>();

  constructor(link: RedisLink, scripts: HealthScripts) {
    this.#link = link;
    this.#scripts = scripts;
  }

  /** Claims the deployment's half-open trial; `adopt` takes over the breaker record Redis answers with. */
  claim(deployment: DeploymentHealth, adopt: (record: BreakerRecord) => void): boolean | Promise<boolean> {
    if (!this.#link.up) return true;
    if ((this.#trialHeldElsewhereUntilMs.get(deployment.key) ?? 0) > Date.now()) return false;
    return this.#scripts
      .claimTrial(
        healthKey(this.#link, deployment.key, 'breaker'),
        healthKey(this.#link, deployment.key, 'trial'),
        this.#link.replicaId,
        TRIAL_LEASE_MS,
        RECORD_TTL_S,
        this.#link.key(CHANNEL),
        deployment.key,
      )
      .then(([granted, encoded, leaseLeftMs]) => {
        if (encoded !== '') adopt(JSON.parse(encoded) as BreakerRecord);
        if (leaseLeftMs > 0) this.#trialHeldElsewhereUntilMs.set(deployment.key, Date.now() + leaseLeftMs);
        return granted === 1;
      })
      .catch(() => true);
  }

  release(deployment: DeploymentHealth): void {
    if (!this.#link.up) return;
    this.#scripts.releaseTrial(healthKey(this.#link, deployment.key, 'trial'), this.#link.replicaId, this.#link.key(CHANNEL), deployment.key).catch(() => undefined);
  }

  /** The deployment's trial has ended (or it was forgotten): the next claim asks Redis again. */
  trialEnded(deploymentKey: string): void {
    this.#trialHeldElsewhereUntilMs.delete(deploymentKey);
  }

  /**
   * Whether this replica sends this interval's probe: the first to ask wins it for `leaseMs`. A
   * structural probe and a recovery probe hold leases of their own: the long one of a structural
   * probe that readmitted the deployment must not hold off the recovery probes of its ejection.
   */
  async probeLease(deployment: DeploymentHealth, leaseMs: number, purpose: ProbePurpose): Promise<boolean> {
    if (!this.#link.up) return true;
    try {
      const set = await this.#link.commands.set(healthKey(this.#link, deployment.key, PROBE_LEASES[purpose]), this.#link.replicaId, 'PX', wholeMs(leaseMs), 'NX');
      return set === 'OK';
    } catch {
      return true;
    }
  }
}
