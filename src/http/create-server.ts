import { Server, type IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import { GatewayError } from '../errors/gateway-error.js';
import { GatewayResponse } from './gateway-response.js';
import { newRequestId } from './request-id.js';
import type { CallerDialect } from '../dialects/caller-dialect.js';
import { routeMatcher, type RouteTable } from './route-matcher.js';
import { answerThrown } from './answer-thrown.js';
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
   * `drainMs` after the call, when what is still being handled is cut: its reply ends it (a stream
   * under way with its dialect's error event, then its socket closes), and a response no reply
   * owns has its socket closed.
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
        if (!response.reply) {
          response.destroy();
          continue;
        }
        const closed = response.reply.cut();
        if (closed) streams.push(closed);
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

/**
 * The HTTP edge: assigns the request id, dispatches, and turns any thrown error into a JSON
 * error response. It holds no business logic, and no input can crash the process.
 */
export function createHttpServer(
  routes: RouteTable,
  logger: Logger,
  options: { dialectOf?: (path: string) => CallerDialect; headersTimeoutMs?: number } = {},
): GatewayServer {
  const match = routeMatcher(routes);
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
    const matched = match(request.method, path);
    if ('status' in matched) {
      sendGatewayError(response, noRouteError(matched.status, request.method, path), requestId);
      return;
    }
    server.handle(response, () =>
      Promise.resolve()
        .then(() => matched.handler(request, response, requestId, matched.params))
        // The last resort: an inference request's reply answers what its pipeline throws.
        .catch((error: unknown) => answerThrown(response, error, requestId, dialect, logger)),
    );
  });
  return server;
}

function noRouteError(status: 404 | 405, method: string | undefined, path: string): GatewayError {
  return new GatewayError(status === 405 ? `Method ${method} is not allowed on ${path}.` : `No route for ${method} ${path}.`, {
    status,
    code: status === 405 ? 'method_not_allowed' : 'not_found',
    type: 'invalid_request_error',
  });
}
