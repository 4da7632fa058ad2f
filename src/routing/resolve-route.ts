import { GatewayError } from '../errors/gateway-error.js';
import type { Config, ConnectionConfig, RouteConfig, TargetConfig } from '../config/schema.js';
import { configSchema } from '../config/schema.js';
import { compileGlob, globMatches, isGlob, type CompiledGlob } from '../core/glob.js';
import { redactKeyShapes } from '../core/redact-key-shapes.js';
import { nearestNames } from '../config/closest-name.js';
import { modelChanges } from './model-change.js';

/** A target with its connection looked up: what one attempt needs to know about where it goes. */
export interface ResolvedTarget {
  connectionName: string;
  connection: ConnectionConfig;
  /** The model we ask the provider for. */
  routedModel: string;
  /** Another model than the route's first target: written, or inferred (`model-change.ts`). */
  modelChange: boolean;
  config: TargetConfig;
}

export interface ResolvedRoute {
  /** The route name, or `connection/model` for the direct form. */
  name: string;
  /** A `connection/model` request: no configured route, default policy. */
  direct: boolean;
  policy: RouteConfig;
  /** In the order the attempt loop should try them. */
  targets: ResolvedTarget[];
}

/** A route with every default applied, for the `connection/model` direct form. */
const DEFAULT_ROUTE_POLICY: Omit<RouteConfig, 'targets'> = (() => {
  const { targets: _targets, ...policy } = configSchema.parse({
    connections: { placeholder: { provider: 'mock' } },
    routes: { placeholder: { targets: [{ connection: 'placeholder', model: 'placeholder' }] } },
  }).routes.placeholder!;
  return policy;
})();

/**
 * Resolves the caller's `model` to a route: a configured route name first, then a route's exact
 * alias, then the direct `connection/model` form (unless `direct.enabled: false`), then alias
 * globs in config order. Anything else is a 404 `model_not_found`, raised before any provider,
 * naming the closest routes `mayUse` lets the caller see.
 */
export function resolveRoute(config: Config, requestedModel: string, mayUse: (route: string) => boolean = () => true): ResolvedRoute {
  if (Object.hasOwn(config.routes, requestedModel)) return namedRoute(config, requestedModel, config.routes[requestedModel]!);
  const aliases = aliasIndex(config);
  const aliasedRoute = aliases.exact.get(requestedModel);
  if (aliasedRoute !== undefined) return namedRoute(config, aliasedRoute, config.routes[aliasedRoute]!);

  const slash = requestedModel.indexOf('/');
  // With the direct form off, `connection/model` is a model like any other unknown one. So is a
  // model shaped like a key, a key pasted into the wrong field: sent on, it would reach a provider
  // and become a deployment's name in health, metrics and alerts.
  if (config.direct.enabled && slash > 0 && slash < requestedModel.length - 1 && redactKeyShapes(requestedModel) === requestedModel) {
    const connectionName = requestedModel.slice(0, slash);
    if (Object.hasOwn(config.connections, connectionName)) {
      const target: TargetConfig = {
        connection: connectionName,
        model: requestedModel.slice(slash + 1),
        model_change: false,
        weight: 1,
        priority: 0,
      };
      return {
        name: requestedModel,
        direct: true,
        policy: { ...DEFAULT_ROUTE_POLICY, targets: [target] },
        targets: orderTargets(config, [target]),
      };
    }
  }
  const globRoute = routeByAliasGlob(aliases, requestedModel);
  if (globRoute !== undefined) return namedRoute(config, globRoute, config.routes[globRoute]!);
  throw unknownModel(config, requestedModel, mayUse);
}

/**
 * The route a name resolves to without the direct form (the names `GET /v1/models/{id}` answers):
 * a route name, an exact alias, or an alias glob; undefined when none.
 */
export function routeNamed(config: Config, name: string): string | undefined {
  if (Object.hasOwn(config.routes, name)) return name;
  const aliases = aliasIndex(config);
  return aliases.exact.get(name) ?? routeByAliasGlob(aliases, name);
}

/** Exact aliases with their routes, in config order (what `GET /v1/models` lists beside route names). */
export function exactAliases(config: Config): ReadonlyMap<string, string> {
  return aliasIndex(config).exact;
}

interface AliasIndex {
  exact: Map<string, string>;
  globs: { glob: CompiledGlob; route: string }[];
}

/** Built once per config snapshot, like the resolved routes. */
const aliasIndexes = new WeakMap<Config, AliasIndex>();

function aliasIndex(config: Config): AliasIndex {
  let index = aliasIndexes.get(config);
  if (!index) {
    index = { exact: new Map(), globs: [] };
    for (const [route, { aliases }] of Object.entries(config.routes)) {
      for (const alias of aliases) {
        if (isGlob(alias)) index.globs.push({ glob: compileGlob(alias), route });
        // The config check refuses an exact alias claimed twice; the first would win.
        else if (!index.exact.has(alias)) index.exact.set(alias, route);
      }
    }
    aliasIndexes.set(config, index);
  }
  return index;
}

function routeByAliasGlob(index: AliasIndex, name: string): string | undefined {
  if (index.globs.length === 0) return undefined;
  const characters = Array.from(name);
  return index.globs.find(({ glob }) => globMatches(glob, characters))?.route;
}

/** How many of the closest route names a 404 suggests. */
const SUGGESTED_ROUTES = 3;

/** A 404 that helps: the routes nearest to what was asked for (among those the caller may use), and where the full list is. */
function unknownModel(config: Config, requestedModel: string, mayUse: (route: string) => boolean): GatewayError {
  const closest = nearestNames(requestedModel, Object.keys(config.routes).filter(mayUse), SUGGESTED_ROUTES);
  const suggestion = closest.length > 0 ? ` The closest routes: ${closest.map((name) => `\`${name}\``).join(', ')}.` : '';
  const quoted = redactKeyShapes(requestedModel);
  const keyHint = quoted === requestedModel ? '' : ' It looks like an API key: a key goes in the Authorization or x-api-key header, never in `model`.';
  return new GatewayError(
    `The model \`${quoted}\` does not exist or you do not have access to it.${keyHint}${suggestion} GET /v1/models lists the models you can use.`,
    { status: 404, code: 'model_not_found', type: 'invalid_request_error', param: 'model' },
  );
}

/** Resolved named routes per config snapshot: a reload makes a new snapshot, so no invalidation. */
const namedRoutes = new WeakMap<Config, Map<string, ResolvedRoute>>();

function namedRoute(config: Config, name: string, route: RouteConfig): ResolvedRoute {
  let byName = namedRoutes.get(config);
  if (!byName) {
    byName = new Map();
    namedRoutes.set(config, byName);
  }
  let resolved = byName.get(name);
  if (!resolved) {
    resolved = Object.freeze({ name, direct: false, policy: route, targets: orderTargets(config, route.targets) });
    byName.set(name, resolved);
  }
  return resolved;
}

/**
 * Targets in tiers: same-model first, those that change the model after (docs/lifecycle.md); within each,
 * ascending `priority`; within equal priority, config order (the route's strategy may reorder
 * those per request, see `plan-targets.ts`).
 */
function orderTargets(config: Config, targets: readonly TargetConfig[]): ResolvedTarget[] {
  const changes = modelChanges(targets);
  const resolved = targets.map((target, index) => ({
    connectionName: target.connection,
    connection: config.connections[target.connection]!,
    routedModel: target.model,
    modelChange: changes[index]!.modelChange,
    config: target,
  }));
  // Array.prototype.sort is stable: equal tiers keep config order.
  return resolved.sort((a, b) => Number(a.modelChange) - Number(b.modelChange) || a.config.priority - b.config.priority);
}
