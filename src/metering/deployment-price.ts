import type { Config, TargetConfig } from '../config/schema.js';
import { priceFor, type Price } from './price.js';

/** Where an attempt ran: `AttemptRecord` fits. */
export interface Deployment {
  connection: string;
  /** The routed model. */
  model: string;
}

/**
 * The price of a deployment as the config sets it for `route`. The route's own target decides
 * when it has one: its `price` override, or the catalog. Without one (a probe, a direct
 * `connection/model` request, a target a reload removed), another route's override for the same
 * connection and model applies, because what a deployment costs does not depend on the route
 * that reached it; failing that, the catalog.
 */
export function deploymentPrice(config: Config, route: string | null, deployment: Deployment): Price | undefined {
  const isDeployment = (target: TargetConfig) => target.connection === deployment.connection && target.model === deployment.model;
  const routeConfig = route !== null && Object.hasOwn(config.routes, route) ? config.routes[route] : undefined;
  const own = routeConfig?.targets.find(isDeployment);
  if (own) return priceFor(own);
  const overridden = Object.values(config.routes)
    .flatMap((other) => other.targets)
    .find((target) => isDeployment(target) && target.price !== undefined);
  return priceFor(overridden ?? deployment);
}
