import { DEFAULT_ROUTE_HEALTH, type Config } from '../config/schema.js';
import { deploymentKey } from '../core/deployment-key.js';

const bySnapshot = new WeakMap<Config, ReadonlyMap<string, number>>();

/**
 * How often an ejected deployment is probed (`recovery_probe_s`, in ms; 0: never), read from the
 * config in force so a reload applies from the next interval. A deployment several routes name
 * takes the first of them in config order. One no route names (the direct `connection/model`
 * form) is never probed: probes cost money, and a one-target request tries its deployment anyway.
 */
export function recoveryProbeIntervalMs(config: Config, key: string): number {
  let intervals = bySnapshot.get(config);
  if (!intervals) {
    const built = new Map<string, number>();
    for (const route of Object.values(config.routes)) {
      const intervalMs = (route.health ?? DEFAULT_ROUTE_HEALTH).recovery_probe_s * 1_000;
      for (const target of route.targets) {
        const targetKey = deploymentKey(target.connection, target.model);
        if (!built.has(targetKey)) built.set(targetKey, intervalMs);
      }
    }
    intervals = built;
    bySnapshot.set(config, intervals);
  }
  return intervals.get(key) ?? 0;
}
