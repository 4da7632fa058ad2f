import { readFileSync } from 'node:fs';
import { backoffSchema, connectionSchema, timeoutsSchema, type ConnectionConfig } from './schema.js';
import { formatPath } from './config-issue.js';
import { closestName } from './closest-name.js';
import type { EnvSubstitution } from './interpolate-env.js';
import { quoteValue } from './quote-value.js';
import { isRecord } from './is-record.js';
import { PROVIDER_CONNECTION_KEYS, PROVIDER_TABLE, PROVIDERS } from '../providers/provider-table.js';

export interface ReferenceIssue {
  path: string;
  pathSegments: PropertyKey[];
  message: string;
}

export interface ReferenceContext {
  /** Paths whose value was only an unset variable, with the variable. */
  unsetByPath: ReadonlyMap<string, string>;
  substitutions: readonly EnvSubstitution[];
}

type Add = (path: PropertyKey[], message: string) => void;

/** What the provider table says a connection needs, and keys it takes that belong to another provider. */
function checkConnection(name: string, connection: ConnectionConfig, context: ReferenceContext, add: Add): void {
  const entry = PROVIDER_TABLE[connection.provider];
  if (entry.needs.apiKey && connection.api_key === undefined) {
    const path = ['connections', name, 'api_key'];
    const variable = context.unsetByPath.get(formatPath(path));
    add(path, `required for provider ${connection.provider}${variable ? ` (environment variable ${variable} is not set)` : ''}`);
  }
  if (entry.needs.baseUrl && connection.base_url === undefined) {
    add(['connections', name, 'base_url'], `required for provider ${connection.provider}`);
  }
  for (const key of Object.keys(PROVIDER_CONNECTION_KEYS) as (keyof typeof PROVIDER_CONNECTION_KEYS)[]) {
    if (connection[key] === undefined || Object.hasOwn(entry.keys, key)) continue;
    const owners = PROVIDERS.filter((provider) => Object.hasOwn(PROVIDER_TABLE[provider].keys, key));
    add(['connections', name, key], key === 'dialect' ? 'only a mock connection takes a dialect' : `only ${owners.join(' or ')} connections take ${key}`);
  }
  for (const issue of entry.check?.(connection, (path) => readFileSync(path, 'utf8')) ?? []) add(['connections', name, issue.key], issue.message);
}

function checkTargetConnection(path: PropertyKey[], connection: string, known: readonly string[], context: ReferenceContext, add: Add): void {
  if (known.includes(connection)) return;
  const quoted = quoteValue(connection, path, context.substitutions);
  if (!quoted.shown) {
    add(path, `unknown connection (not shown: ${quoted.why})`);
    return;
  }
  const suggestion = closestName(connection, known);
  add(path, `unknown connection ${quoted.json}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`);
}

/** The first-token bounds of `auto`, as written or defaulted, must not cross; the error is put on the one the file sets. */
function checkFirstTokenBounds(routeName: string, raw: unknown, add: Add): void {
  const timeouts = timeoutsSchema.safeParse(raw ?? {});
  if (!timeouts.success) return;
  const { first_token_min_ms: minMs, first_token_max_ms: maxMs } = timeouts.data;
  if (maxMs >= minMs) return;
  const path = ['routes', routeName, 'timeouts'];
  if (isRecord(raw) && raw.first_token_max_ms !== undefined) add([...path, 'first_token_max_ms'], `must be at least first_token_min_ms (${minMs})`);
  else add([...path, 'first_token_min_ms'], `must be at most first_token_max_ms (${maxMs}, the default)`);
}

/**
 * Checks that the schema alone cannot: names that refer to other entries, and per-provider needs.
 * They run on the file as written, entry by entry, so a schema error in one place hides nothing
 * about another: every error is reported in one run.
 */
export function checkReferences(raw: unknown, context: ReferenceContext): ReferenceIssue[] {
  const issues: ReferenceIssue[] = [];
  const add: Add = (pathSegments, message) => issues.push({ path: formatPath(pathSegments), pathSegments, message });
  if (!isRecord(raw)) return issues;

  const connections = isRecord(raw.connections) ? raw.connections : undefined;
  for (const [name, entry] of Object.entries(connections ?? {})) {
    if (name.includes('/')) add(['connections', name], 'a connection name cannot contain "/" (it separates connection and model)');
    const connection = connectionSchema.safeParse(entry);
    if (connection.success) checkConnection(name, connection.data, context, add);
  }
  if (!isRecord(raw.routes)) return issues;
  for (const [routeName, route] of Object.entries(raw.routes)) {
    if (!isRecord(route)) continue;
    // Without a valid connections block every target would look unknown: that block's own error says it all.
    if (connections && Array.isArray(route.targets)) {
      const known = Object.keys(connections);
      route.targets.forEach((target: unknown, index) => {
        if (isRecord(target) && typeof target.connection === 'string' && target.connection !== '') {
          checkTargetConnection(['routes', routeName, 'targets', index, 'connection'], target.connection, known, context, add);
        }
      });
    }
    const backoff = backoffSchema.safeParse(route.backoff);
    if (backoff.success && backoff.data.max_ms < backoff.data.base_ms) {
      add(['routes', routeName, 'backoff', 'max_ms'], `must be at least base_ms (${backoff.data.base_ms})`);
    }
    checkFirstTokenBounds(routeName, route.timeouts, add);
  }
  checkAliases(raw.routes, add);
  if (isRecord(raw.canaries)) checkCanaryRoutes(raw.canaries, Object.keys(raw.routes), add);
  return issues;
}

/**
 * A name resolves to one route: an alias may not be a route's name, nor be claimed by two routes
 * (the later one would never be reached; a repeated glob likewise).
 */
function checkAliases(routes: Record<string, unknown>, add: Add): void {
  const claimedBy = new Map<string, string>();
  for (const [routeName, route] of Object.entries(routes)) {
    if (!isRecord(route) || !Array.isArray(route.aliases)) continue;
    route.aliases.forEach((alias: unknown, index) => {
      if (typeof alias !== 'string') return;
      const path = ['routes', routeName, 'aliases', index];
      const owner = claimedBy.get(alias);
      if (Object.hasOwn(routes, alias)) add(path, `${JSON.stringify(alias)} is the name of a route; a route name cannot also be an alias`);
      else if (owner !== undefined) add(path, `${JSON.stringify(alias)} is already an alias of route ${JSON.stringify(owner)}`);
      else claimedBy.set(alias, routeName);
    });
  }
}

/** A canary is keyed by the route it scores; a grader route must exist too, and be another route. */
function checkCanaryRoutes(canaries: Record<string, unknown>, routes: readonly string[], add: Add): void {
  const unknownRoute = (name: string) => {
    const suggestion = closestName(name, routes);
    return `unknown route ${JSON.stringify(name)}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`;
  };
  for (const [routeName, canary] of Object.entries(canaries)) {
    if (!routes.includes(routeName)) add(['canaries', routeName], unknownRoute(routeName));
    const grader = isRecord(canary) && isRecord(canary.scorer) ? canary.scorer.grader_route : undefined;
    if (typeof grader !== 'string' || grader === '') continue;
    const path = ['canaries', routeName, 'scorer', 'grader_route'];
    if (grader === routeName) add(path, 'must be another route than the one it grades');
    else if (!routes.includes(grader)) add(path, unknownRoute(grader));
  }
}
