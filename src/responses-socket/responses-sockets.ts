import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import { overloadedError } from '../errors/overloaded-error.js';
import { GatewayResponse } from '../http/gateway-response.js';
import { newRequestId } from '../http/request-id.js';
import { sendGatewayError } from '../http/send.js';
import { authenticateRequest } from '../keys/authenticate.js';
import type { KeyCache } from '../keys/key-cache.js';
import { CLOSE_GOING_AWAY, ResponsesSocket, type ResponsesSocketDeps } from './responses-socket.js';

/** How long a socket closed at shutdown has to answer the closing handshake before it is dropped. */
const CLOSE_GRACE_MS = 1_000;

const SOCKET_PATH = '/v1/responses';

export interface ResponsesSocketsDeps extends ResponsesSocketDeps {
  config(): Config;
  keys: KeyCache;
}

/**
 * The Responses API's WebSocket mode (`GET /v1/responses` with `Upgrade: websocket`): the
 * server's `upgrade` listener. It checks the key before upgrading — a refused key gets its 401 or
 * 403 as an HTTP answer, in the OpenAI error shape — and holds every open socket, for
 * `server.websocket.max_sockets` and the shutdown. Any other upgrade, and every upgrade while
 * `server.websocket` is `false`, is handed to the HTTP routes as a plain request (the path's
 * route answers 426), its connection closed after.
 */
export class ResponsesSockets {
  readonly #deps: ResponsesSocketsDeps;
  readonly #server = new WebSocketServer({ noServer: true });
  readonly #open = new Set<ResponsesSocket>();
  #draining = false;

  constructor(deps: ResponsesSocketsDeps) {
    this.#deps = deps;
  }

  /** Serves `server`'s upgrades; one it does not serve reaches the server's routes as a plain request. */
  attach(server: Server): void {
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.#upgrade(request, socket, head, (plain, response) => server.emit('request', plain, response)).catch((error: unknown) => {
        this.#deps.logger.error({ err: error }, 'a WebSocket upgrade failed');
        socket.destroy();
      });
    });
  }

  async #upgrade(request: IncomingMessage, socket: Duplex, head: Buffer, asRequest: (request: IncomingMessage, response: GatewayResponse) => void): Promise<void> {
    const config = this.#deps.config();
    const settings = config.server.websocket;
    const path = (request.url ?? '/').split('?', 1)[0];
    const response = new GatewayResponse(request);
    response.requestId = newRequestId();
    response.shouldKeepAlive = false;
    response.assignSocket(socket as never);
    response.once('finish', () => socket.end());
    if (settings === false || path !== SOCKET_PATH || request.method !== 'GET') return asRequest(request, response);
    try {
      if (this.#draining) throw new GatewayError('The gateway is shutting down; open the socket again on another replica.', { status: 503, code: 'shutdown', type: 'server_error', retryAfterMs: 1_000 });
      await authenticateRequest(request.headers, { mode: config.auth.mode, keys: this.#deps.keys, nowMs: Date.now() });
      if (this.#open.size >= settings.max_sockets) throw overloadedError('The gateway holds server.websocket.max_sockets sockets already; try again shortly, or use POST /v1/responses.');
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      sendGatewayError(response, error, response.requestId);
      return;
    }
    response.detachSocket(socket as never);
    this.#server.options.maxPayload = settings.max_message_bytes;
    this.#server.handleUpgrade(request, socket, head, (ws) => {
      const held = new ResponsesSocket(ws, request.headers, { idleMs: settings.idle_s * 1000, lifetimeMs: settings.max_lifetime_s * 1000 }, this.#deps);
      this.#open.add(held);
      void held.closed.then(() => this.#open.delete(held));
    });
  }

  /**
   * Graceful close: no socket is accepted any more; an idle socket is closed (1001) at once, one
   * running a response once it ends — at the latest `drainMs` from now, when the response is cut
   * with its error event. Resolves when every socket has closed.
   */
  async drain(drainMs: number): Promise<void> {
    this.#draining = true;
    for (const socket of this.#open) socket.close(CLOSE_GOING_AWAY, 'the gateway is shutting down');
    if (this.#open.size === 0) return;
    const cut = setTimeout(() => {
      for (const socket of this.#open) socket.cut();
    }, drainMs);
    const drop = setTimeout(() => {
      for (const socket of this.#open) socket.terminate();
    }, drainMs + CLOSE_GRACE_MS);
    try {
      await Promise.all([...this.#open].map((socket) => socket.closed));
    } finally {
      clearTimeout(cut);
      clearTimeout(drop);
    }
  }
}
