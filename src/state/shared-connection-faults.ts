import { FAILURE_POLICY } from '../core/failure-policy.js';
import type { DeploymentHealth, HealthRegistry } from '../health/health-registry.js';
import type { StructuralTransition } from '../health/structural-fault.js';
import type { RedisLink } from './redis-link.js';
import { CHANNEL, connectionKey, RECORD_TTL_S, type ConnectionFault, type HealthMessage } from './shared-health-records.js';

/**
 * A rejected key puts every deployment of its connection out, on every replica, even ones not
 * used yet: the connection's fault is a record of its own, published when it is entered or
 * cleared. What changed while Redis was down is pushed on its return.
 */
export class SharedConnectionFaults {
  readonly #link: RedisLink;
  readonly #registry: () => HealthRegistry;
  /** Connections whose fault changed while Redis was down (or a push failed). */
  readonly #changed = new Set<string>();

  constructor(link: RedisLink, registry: () => HealthRegistry) {
    this.#link = link;
    this.#registry = registry;
  }

  /** Shares a structural transition when it entered or cleared its connection's fault. */
  share(deployment: DeploymentHealth, change: StructuralTransition): void {
    if (change.cause === 'persistent_429' || FAILURE_POLICY[change.cause].structural !== 'connection') return;
    const registry = this.#registry();
    const entered = change.to === 'structural' && registry.connectionFault(deployment.connection) === change.cause;
    const cleared = change.to === 'clear' && registry.connectionFault(deployment.connection) === undefined;
    if (!entered && !cleared) return;
    if (!this.#link.up) {
      this.#changed.add(deployment.connection);
      return;
    }
    this.#push(deployment.connection, entered ? { cause: change.cause, reason: change.reason, sinceMs: change.atMs } : undefined).catch(() =>
      this.#changed.add(deployment.connection),
    );
  }

  /** Redis is back: pushes each connection fault that changed meanwhile, as it stands now. Throws if Redis goes away again. */
  async pushChanged(deployments: readonly DeploymentHealth[]): Promise<void> {
    const registry = this.#registry();
    for (const connection of this.#changed) {
      const cause = registry.connectionFault(connection);
      const deployment = deployments.find((candidate) => candidate.connection === connection && candidate.structural.cause === cause);
      await this.#push(connection, cause && deployment ? { cause, reason: deployment.structural.reason, sinceMs: deployment.structural.sinceMs } : undefined);
      this.#changed.delete(connection);
    }
  }

  async #push(connection: string, fault: ConnectionFault | undefined): Promise<void> {
    const key = connectionKey(this.#link, connection);
    const message: HealthMessage = { kind: 'connection', connection, fault: fault ?? null };
    const steps = this.#link.commands.multi();
    if (fault) steps.set(key, JSON.stringify(fault), 'EX', RECORD_TTL_S);
    else steps.del(key);
    await steps.publish(this.#link.key(CHANNEL), JSON.stringify(message)).exec();
  }
}
