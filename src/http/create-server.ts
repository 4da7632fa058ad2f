import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { GatewayError } from '../errors/gateway-error.js';
import { GatewayResponse } from './gateway-response.js';
import { newRequestId } from './request-id.js';
import type { InboundDialect } from './inbound-dialect.js';
import { sendGatewayError } from './send.js';

/** The gateway's HTTP server: its responses are `GatewayResponse`s. */
export type GatewayServer = Server<typeof IncomingMessage, typeof GatewayResponse>;

export type RouteHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  requestId: string,
  params: Readonly<Record<string, string>>,
) => Promise<void> | void;

/** `METHOD /path` → handler; a path segment `:name` matches any one segment and becomes a param. */
export type RouteTable = Readonly<Record<string, RouteHandler>>;

interface PatternRoute {
  method: string;
  segments: string[];
  handler: RouteHandler;
}

/**
 * The HTTP edge: assigns the request id, dispatches, and turns any thrown error into a JSON
 * error response. It holds no business logic, and no input can crash the process.
 */
export function createHttpServer(routes: RouteTable, logger: Logger, options: { dialectOf?: (path: string) => InboundDialect } = {}): GatewayServer {
  const exact = new Map<string, RouteHandler>();
  const patterns: PatternRoute[] = [];
  for (const [key, handler] of Object.entries(routes)) {
    const [method, path] = key.split(' ') as [string, string];
    if (path.includes('/:')) patterns.push({ method, segments: path.split('/'), handler });
    else exact.set(key, handler);
  }
  const knownPaths = new Set(Object.keys(routes).map((key) => key.slice(key.indexOf(' ') + 1)));
  return createServer({ keepAliveTimeout: 65_000, ServerResponse: GatewayResponse }, (request, response) => {
    const requestId = newRequestId();
    response.requestId = requestId;
    const path = (request.url ?? '/').split('?', 1)[0]!;
    const dialect = options.dialectOf?.(path);
    if (dialect) response.requestIdHeaders = dialect.requestIdHeaders;
    let params: Record<string, string> = {};
    let handler = exact.get(`${request.method} ${path}`);
    let pathKnown = knownPaths.has(path);
    if (!handler) {
      for (const route of patterns) {
        const matched = matchSegments(route.segments, path);
        if (!matched) continue;
        pathKnown = true;
        if (route.method !== request.method) continue;
        handler = route.handler;
        params = matched;
        break;
      }
    }
    if (!handler) {
      const status = pathKnown ? 405 : 404;
      sendGatewayError(
        response,
        new GatewayError(status === 405 ? `Method ${request.method} is not allowed on ${path}.` : `No route for ${request.method} ${path}.`, {
          status,
          code: status === 405 ? 'method_not_allowed' : 'not_found',
          type: 'invalid_request_error',
        }),
        requestId,
      );
      return;
    }
    Promise.resolve()
      .then(() => handler(request, response, requestId, params))
      .catch((error: unknown) => {
        if (error instanceof GatewayError) {
          sendGatewayError(response, error, requestId, dialect);
          return;
        }
        logger.error({ err: error, requestId }, 'unhandled error while serving a request');
        sendGatewayError(response, new GatewayError('Internal gateway error.', { status: 500, code: 'internal_error', type: 'server_error' }), requestId, dialect);
      });
  });
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
