import type { IncomingMessage } from 'node:http';
import type { GatewayResponse } from './gateway-response.js';

export type RouteHandler = (
  request: IncomingMessage,
  response: GatewayResponse,
  requestId: string,
  params: Readonly<Record<string, string>>,
) => Promise<void> | void;

/**
 * `METHOD /path` → handler; a path segment `:name` matches any one segment and becomes a param,
 * and a path ending in `/*` matches every path under it, the rest becoming the param `rest`.
 */
export type RouteTable = Readonly<Record<string, RouteHandler>>;

/** The handler of a request and its params, or why there is none: no route has the path (404), or none with its method (405). */
export type RouteMatch = { handler: RouteHandler; params: Record<string, string> } | { status: 404 | 405 };

interface PatternRoute {
  method: string;
  segments: string[];
  handler: RouteHandler;
}

/** Finds a request's handler in a route table: exact paths first, then `:param` patterns, then `/*` prefixes, each in table order. */
export function routeMatcher(routes: RouteTable): (method: string | undefined, path: string) => RouteMatch {
  const exact = new Map<string, RouteHandler>();
  const patterns: PatternRoute[] = [];
  const prefixes: { method: string; prefix: string; handler: RouteHandler }[] = [];
  for (const [key, handler] of Object.entries(routes)) {
    const [method, path] = key.split(' ') as [string, string];
    if (path.endsWith('/*')) prefixes.push({ method, prefix: path.slice(0, -1), handler });
    else if (path.includes('/:')) patterns.push({ method, segments: path.split('/'), handler });
    else exact.set(key, handler);
  }
  const knownPaths = new Set(Object.keys(routes).map((key) => key.slice(key.indexOf(' ') + 1)));
  return (method, path) => {
    const handler = exact.get(`${method} ${path}`);
    if (handler) return { handler, params: {} };
    let pathKnown = knownPaths.has(path);
    for (const route of patterns) {
      const params = matchSegments(route.segments, path);
      if (!params) continue;
      pathKnown = true;
      if (route.method === method) return { handler: route.handler, params };
    }
    for (const route of prefixes) {
      if (!path.startsWith(route.prefix)) continue;
      pathKnown = true;
      if (route.method === method) return { handler: route.handler, params: { rest: path.slice(route.prefix.length) } };
    }
    return { status: pathKnown ? 405 : 404 };
  };
}

function matchSegments(pattern: readonly string[], path: string): Record<string, string> | undefined {
  const segments = path.split('/');
  if (segments.length !== pattern.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, expected] of pattern.entries()) {
    const actual = segments[index]!;
    if (expected.startsWith(':')) {
      const value = safeDecode(actual);
      if (value === undefined || value === '') return undefined;
      params[expected.slice(1)] = value;
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return params;
}

/** A malformed %-escape is a path that matches nothing, not an exception on the request path. */
function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
