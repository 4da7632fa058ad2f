import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';
import { sendGatewayError } from './send.js';

/**
 * `GET /v1/responses`: the Responses WebSocket mode is not served, and a client that tries it
 * must learn so at once (Codex, for one, then falls back to HTTP) rather than wait on an upgrade
 * that never comes. The server has no `upgrade` listener, so Node hands such a request here as a
 * plain one. Any other GET on the path is a wrong method, as it would be without this route.
 */
export function refuseWebSocket(request: IncomingMessage, response: ServerResponse, requestId: string): void {
  if (request.headers.upgrade?.toLowerCase() !== 'websocket') {
    sendGatewayError(
      response,
      new GatewayError('Method GET is not allowed on /v1/responses.', { status: 405, code: 'method_not_allowed', type: 'invalid_request_error' }),
      requestId,
    );
    return;
  }
  // The socket was offered for another protocol: nothing more should travel on it.
  response.setHeader('connection', 'close');
  sendGatewayError(
    response,
    new GatewayError('The WebSocket mode of /v1/responses is not supported: use HTTP POST /v1/responses with "stream": true.', {
      status: 426,
      code: 'websocket_not_supported',
      type: 'invalid_request_error',
    }),
    requestId,
  );
}
