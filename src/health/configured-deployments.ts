import type { Config } from '../config/schema.js';
import { deploymentKey } from '../core/deployment-key.js';

/** A deployment a route names: one upstream model on one connection. */
export interface ConfiguredDeployment {
  connection: string;
  model: string;
}

const bySnapshot = new WeakMap<Config, ReadonlyMap<string, ConfiguredDeployment>>();

/**
 * The deployments the config's routes name, by key (`connection/model`), per config snapshot.
 * Every other deployment was reached through the direct form, and what it may hold is bounded.
 */
export function configuredDeployments(config: Config): ReadonlyMap<string, ConfiguredDeployment> {
  let deployments = bySnapshot.get(config);
  if (!deployments) {
    deployments = new Map(
      Object.values(config.routes).flatMap((route) =>
        route.targets.map((target) => [deploymentKey(target.connection, target.model), { connection: target.connection, model: target.model }] as const),
      ),
    );
    bySnapshot.set(config, deployments);
  }
  return deployments;
}
