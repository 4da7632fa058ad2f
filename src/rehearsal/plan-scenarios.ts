import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import { FAULT_NAMES, type FaultName } from './faults.js';

/** One cell of a rehearsal: a route, the target at one position of it, and the fault it acts out. */
export interface Scenario {
  route: string;
  /** The target's index in the route's `targets`, from 0. */
  position: number;
  connection: string;
  model: string;
  fault: FaultName;
}

/** What to rehearse: some routes (all when unset) and some faults (all when unset). */
export interface RehearsalScope {
  routes?: readonly string[];
  faults?: readonly FaultName[];
}

/** Every route × target position × fault of the scope, routes and faults in their order. */
export function planScenarios(config: Config, scope: RehearsalScope): Scenario[] {
  const routes = scope.routes ?? Object.keys(config.routes);
  const unknown = routes.filter((name) => config.routes[name] === undefined);
  if (unknown.length > 0) {
    throw new GatewayError(`no route named ${unknown.join(', ')} in the config (routes: ${Object.keys(config.routes).join(', ')})`, {
      status: 400,
      code: 'invalid_request_error',
      type: 'invalid_request_error',
      param: 'routes',
    });
  }
  const faults = scope.faults ?? FAULT_NAMES;
  return routes.flatMap((route) =>
    config.routes[route]!.targets.flatMap((target, position) => faults.map((fault) => ({ route, position, connection: target.connection, model: target.model, fault }))),
  );
}
