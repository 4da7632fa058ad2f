import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { GatewayError } from '../errors/gateway-error.js';
import { newRequestId } from './request-id.js';
import { sendGatewayError, sendJson } from './send.js';

export type RouteHandler = (request: IncomingMessage, response: ServerResponse, requestId: string) => Promise<void> | void;

/** `METHOD /path` → handler. Exact paths only: the API surface is small and fixed. */
export type RouteTable = Readonly<Record<string, RouteHandler>>;

/**
 * The HTTP edge: assigns the request id, dispatches, and turns any thrown error into a JSON
 * error response. It holds no business logic, and no input can crash the process.
 */
export function createHttpServer(routes: RouteTable, logger: Logger): Server {
  const knownPaths = new Set(Object.keys(routes).map((key) => key.slice(key.indexOf(' ') + 1)));
  return createServer({ keepAliveTimeout: 65_000 }, (request, response) => {
    const requestId = newRequestId();
    response.setHeader('x-request-id', requestId);
    const path = (request.url ?? '/').split('?', 1)[0]!;
    const handler = routes[`${request.method} ${path}`];
    if (!handler) {
      const status = knownPaths.has(path) ? 405 : 404;
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
      .then(() => handler(request, response, requestId))
      .catch((error: unknown) => {
        if (error instanceof GatewayError) {
          sendGatewayError(response, error, requestId);
          return;
        }
        logger.error({ err: error, requestId }, 'unhandled error while serving a request');
        sendGatewayError(response, new GatewayError('Internal gateway error.', { status: 500, code: 'internal_error', type: 'server_error' }), requestId);
      });
  });
}

export function sendStatus(response: ServerResponse, body: Record<string, unknown>): void {
  sendJson(response, 200, body);
}
