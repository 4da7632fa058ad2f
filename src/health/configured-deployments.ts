import type { Config } from '../config/schema.js';
import { deploymentKey } from '../core/deployment-key.js';

const bySnapshot = new WeakMap<Config, ReadonlySet<string>>();

/**
 * The deployments (`connection/model`) the config's routes name, per config snapshot. Every other
 * deployment was reached through the direct form, and what it may hold is bounded.
 */
export function configuredDeployments(config: Config): ReadonlySet<string> {
  let keys = bySnapshot.get(config);
  if (!keys) {
    keys = new Set(Object.values(config.routes).flatMap((route) => route.targets.map((target) => deploymentKey(target.connection, target.model))));
    bySnapshot.set(config, keys);
  }
  return keys;
}
