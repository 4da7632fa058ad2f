import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import { isEmbeddingModel } from '../metering/embedding-models.js';
import { FAULT_NAMES, FAULTS, type FaultName } from './faults.js';

/** One cell of a rehearsal: a route, the target at one position of it, and the fault it acts out. */
export interface Scenario {
  route: string;
  /** The target's index in the route's `targets`, from 0. */
  position: number;
  connection: string;
  model: string;
  fault: FaultName;
  /** What a caller of the route asks: an embedding route (every target an embedding model) is sent inputs to embed. */
  request: 'chat' | 'embeddings';
}

/** What to rehearse: some routes (all when unset) and some faults (all when unset). */
export interface RehearsalScope {
  routes?: readonly string[];
  faults?: readonly FaultName[];
}

/**
 * Every route × target position × fault of the scope, routes and faults in their order. A fault
 * only a stream can have (a cut, a stall) is left out of an embedding route: its answer is one JSON body.
 */
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
  return routes.flatMap((route) => {
    const { targets } = config.routes[route]!;
    const request = targets.every((target) => isEmbeddingModel(target.model)) ? 'embeddings' : 'chat';
    const played = request === 'chat' ? faults : faults.filter((fault) => !FAULTS[fault].streamOnly);
    return targets.flatMap((target, position) => played.map((fault) => ({ route, position, connection: target.connection, model: target.model, fault, request })));
  });
}
