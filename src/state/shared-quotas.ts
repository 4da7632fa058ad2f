import type { DeploymentHealth } from '../health/health-registry.js';
import type { RedisLink } from './redis-link.js';
import { CHANNEL, healthKey, RECORD_TTL_S, type HealthMessage } from './shared-health-records.js';

/** How often a changed quota snapshot is shared: what `/admin/health` shows of another replica's view is at most this old. */
const QUOTA_SHARE_MS = 1_000;

/** Providers send quota headers on every answer: the latest snapshot per deployment is shared once per `QUOTA_SHARE_MS`. */
export class SharedQuotas {
  readonly #link: RedisLink;
  /** Deployments whose quota snapshot changed since it was last shared. */
  readonly #toShare = new Map<string, DeploymentHealth>();
  #timer: NodeJS.Timeout | undefined;

  constructor(link: RedisLink) {
    this.#link = link;
  }

  changed(deployment: DeploymentHealth): void {
    if (!this.#link.up || !deployment.quota) return;
    this.#toShare.set(deployment.key, deployment);
    this.#timer ??= setTimeout(() => this.#share(), QUOTA_SHARE_MS).unref();
  }

  /** One transaction per deployment: on a cluster each deployment's keys live in a slot of their own. */
  #share(): void {
    this.#timer = undefined;
    if (!this.#link.up) return this.#toShare.clear();
    for (const deployment of this.#toShare.values()) {
      if (!deployment.quota) continue;
      const message: HealthMessage = { kind: 'quota', key: deployment.key, snapshot: deployment.quota, from: this.#link.replicaId };
      this.#link.commands
        .multi()
        .set(healthKey(this.#link, deployment.key, 'quota'), JSON.stringify(deployment.quota), 'EX', RECORD_TTL_S)
        .publish(this.#link.key(CHANNEL), JSON.stringify(message))
        .exec()
        .catch(() => undefined);
    }
    this.#toShare.clear();
  }
}
