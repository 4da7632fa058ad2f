import type { Config, ConnectionConfig, TargetConfig } from '../config/schema.js';
import { homePriceFactor } from './home-price.js';
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
 * that reached it; failing that, the catalog, at the price of the connection's home (a regional
 * endpoint can cost more than a global one: `homePriceFactor`).
 */
export function deploymentPrice(config: Config, route: string | null, deployment: Deployment): Price | undefined {
  const isDeployment = (target: TargetConfig) => target.connection === deployment.connection && target.model === deployment.model;
  const routeConfig = route !== null && Object.hasOwn(config.routes, route) ? config.routes[route] : undefined;
  const homeFactor = homeFactorOf(config.connections[deployment.connection], deployment.model);
  const own = routeConfig?.targets.find(isDeployment);
  if (own) return priceFor(own, homeFactor);
  const overridden = Object.values(config.routes)
    .flatMap((other) => other.targets)
    .find((target) => isDeployment(target) && target.price !== undefined);
  return priceFor(overridden ?? deployment, homeFactor);
}

/** The price factor of the target's home: its provider, and for Vertex its location (a region or `global`). */
function homeFactorOf(connection: ConnectionConfig | undefined, model: string): number {
  if (connection === undefined) return 1;
  return homePriceFactor(connection.provider, connection.location, model);
}
