import { Server, type IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import { CALLER_LEFT } from '../core/cancellation.js';
import { GatewayError } from '../errors/gateway-error.js';
import { GatewayResponse } from './gateway-response.js';
import { newRequestId } from './request-id.js';
import type { CallerDialect } from '../dialects/caller-dialect.js';
import { sendGatewayError } from './send.js';

/** How long a stream cut at the end of a drain has to write its error event before its socket is closed regardless. */
const CUT_STREAM_GRACE_MS = 1_000;

/**
 * The gateway's HTTP server: its responses are `GatewayResponse`s, and it knows which requests
 * are still being handled, so that it can drain (see `drain`).
 */
export class GatewayServer extends Server<typeof IncomingMessage, typeof GatewayResponse> {
  /** Requests whose handler has not returned yet: their records are not written until it does. */
  readonly #handling = new Set<GatewayResponse>();
  #handledAll: (() => void) | undefined;
  #draining = false;

  get draining(): boolean {
    return this.#draining;
  }

  /** Runs a request's handler, counting it as being handled until it settles. */
  handle(response: GatewayResponse, run: () => Promise<void>): void {
    this.#handling.add(response);
    void run().finally(() => {
      this.#handling.delete(response);
      if (this.#handling.size === 0) this.#handledAll?.();
    });
  }

  /**
   * Graceful close. Stops accepting connections and closes the idle ones at once; every answer
   * not yet begun (and every request still to come on an open socket) says `Connection: close`;
   * a socket whose answer was already under way with keep-alive is closed as soon as that answer
   * ends. Resolves when no request is being handled and every socket is closed — at the latest
   * `drainMs` after the call, when what is still being handled ends with `cutAtShutdown` set: a
   * stream under way with its dialect's error event (then its socket closes), anything else by
   * closing its socket.
   */
  async drain(drainMs: number): Promise<void> {
    this.#draining = true;
    const closed = new Promise<void>((resolve) => this.close(() => resolve()));
    this.closeIdleConnections();
    for (const response of this.#handling) {
      if (!response.headersSent) response.setHeader('connection', 'close');
      else response.once('finish', () => setImmediate(() => this.closeIdleConnections()));
    }
    let lastCut: NodeJS.Timeout | undefined;
    const cut = setTimeout(() => {
      const streams: Promise<void>[] = [];
      for (const response of this.#handling) {
        response.cutAtShutdown = true;
        if (!response.headersSent || response.writableEnded || !response.endCutStream) {
          response.destroy();
          continue;
        }
        streams.push(new Promise((resolve) => response.once('close', () => resolve())));
        response.endCutStream();
      }
      // The rest (a request whose head is still arriving) once the streams have written their error
      // event, or after a grace for a caller that does not read it.
      void Promise.all(streams).then(() => this.closeAllConnections());
      if (streams.length > 0) lastCut = setTimeout(() => this.closeAllConnections(), CUT_STREAM_GRACE_MS);
    }, drainMs);
    try {
      // Once every socket is closed no request can arrive; a handler may still be finishing.
      await closed;
      while (this.#handling.size > 0) await new Promise<void>((resolve) => (this.#handledAll = resolve));
    } finally {
      clearTimeout(cut);
      clearTimeout(lastCut);
    }
  }
}

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

interface PatternRoute {
  method: string;
  segments: string[];
  handler: RouteHandler;
}

/**
 * The HTTP edge: assigns the request id, dispatches, and turns any thrown error into a JSON
 * error response. It holds no business logic, and no input can crash the process.
 */
export function createHttpServer(
  routes: RouteTable,
  logger: Logger,
  options: { dialectOf?: (path: string) => CallerDialect; headersTimeoutMs?: number } = {},
): GatewayServer {
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
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const serverOptions = {
    keepAliveTimeout: 65_000,
    // A socket sending its headers slowly holds a connection: Node's own bound is 60 s, checked every 30 s.
    headersTimeout,
    connectionsCheckingInterval: Math.min(1_000, headersTimeout),
    ServerResponse: GatewayResponse,
  };
  const server: GatewayServer = new GatewayServer(serverOptions, (request, response) => {
    const requestId = newRequestId();
    response.requestId = requestId;
    if (server.draining) response.setHeader('connection', 'close');
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
      for (const route of prefixes) {
        if (!path.startsWith(route.prefix)) continue;
        pathKnown = true;
        if (route.method !== request.method) continue;
        handler = route.handler;
        params = { rest: path.slice(route.prefix.length) };
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
    server.handle(response, () =>
      Promise.resolve()
        .then(() => handler(request, response, requestId, params))
        .catch((error: unknown) => {
          // Nobody is left to answer.
          if (error === CALLER_LEFT) return;
          if (error instanceof GatewayError) {
            // HTTP asks a server that stops waiting for a request to close the connection.
            if (error.status === 408) response.setHeader('connection', 'close');
            sendGatewayError(response, error, requestId, dialect);
            return;
          }
          logger.error({ err: error, requestId }, 'unhandled error while serving a request');
          sendGatewayError(response, new GatewayError('Internal gateway error.', { status: 500, code: 'internal_error', type: 'server_error' }), requestId, dialect);
        }),
    );
  });
  return server;
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
