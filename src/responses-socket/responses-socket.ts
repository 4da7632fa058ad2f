import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { RawData, WebSocket } from 'ws';
import { CALLER_LEFT } from '../core/cancellation.js';
import { sessionIdOf } from '../dialects/shared/session-id.js';
import type { ChatAnswer } from '../engine/chat-operation.js';
import { newRequestId } from '../http/request-id.js';
import { spliceTopLevel } from '../providers/shared/splice-json.js';
import type { Endpoint } from '../serving/endpoint.js';
import type { Inbound, JsonBody } from '../serving/inbound.js';
import type { ParsedResponses } from '../serving/responses-endpoint.js';
import { serveRequest, type ServingDeps } from '../serving/serve-request.js';
import { WebSocketReply } from '../serving/web-socket-reply.js';
import { SocketConversation } from './socket-conversation.js';

/** How often an open socket is pinged; one that has not answered the last ping by the next is dropped. */
const PING_INTERVAL_MS = 30_000;

/** WebSocket close codes (RFC 6455 §7.4.1). */
const CLOSE_NORMAL = 1000;
export const CLOSE_GOING_AWAY = 1001;
const CLOSE_INTERNAL_ERROR = 1011;

export interface SocketLimits {
  idleMs: number;
  lifetimeMs: number;
}

export interface ResponsesSocketDeps {
  serving: ServingDeps;
  /** `POST /v1/responses`'s endpoint, which each socket wraps with its own conversation. */
  endpoint: Endpoint<ParsedResponses, ChatAnswer>;
  logger: Logger;
}

/**
 * One accepted WebSocket on `/v1/responses`: each `response.create` message is one request
 * through the same pipeline as `POST /v1/responses` (gate, route, failover, records), under the
 * headers of the handshake, its answer streamed back as messages. One response runs at a time;
 * the socket's own conversation lets the next turn name the last by `previous_response_id`. A
 * client that closes the socket cancels the response it was running. The socket is closed when
 * it has been idle for `idle_s`, at the end of the turn running when `max_lifetime_s` is reached,
 * after a response that failed once it had begun, and when the gateway shuts down.
 */
export class ResponsesSocket {
  readonly #ws: WebSocket;
  readonly #headers: IncomingHttpHeaders;
  readonly #deps: ResponsesSocketDeps;
  readonly #limits: SocketLimits;
  readonly #conversation: SocketConversation;
  /** The session of a turn that names none: the socket is one conversation. */
  readonly #sessionId = `ws_${newRequestId()}`;
  readonly closed: Promise<void>;
  /** The reply of the `response.create` running, if one is. */
  #turn: WebSocketReply | undefined;
  /** Set once the socket is to close: at once when idle, else when its turn ends. */
  #closing: { code: number; reason: string } | undefined;
  #idle: NodeJS.Timeout | undefined;
  readonly #lifetime: NodeJS.Timeout;
  readonly #ping: NodeJS.Timeout;
  #ponged = true;

  constructor(ws: WebSocket, headers: IncomingHttpHeaders, limits: SocketLimits, deps: ResponsesSocketDeps) {
    this.#ws = ws;
    // An Idempotency-Key is one request's; a handshake's would name every turn.
    const { 'idempotency-key': _perRequest, ...perSocket } = headers;
    this.#headers = perSocket;
    this.#limits = limits;
    this.#deps = deps;
    this.#conversation = new SocketConversation(deps.endpoint);
    this.closed = new Promise((resolve) => ws.once('close', () => resolve()));
    ws.on('message', (data, isBinary) => this.#receive(data, isBinary));
    ws.on('pong', () => (this.#ponged = true));
    // A protocol error (a message over max_message_bytes, a bad frame): ws closes the socket with its code.
    ws.on('error', (error) => deps.logger.debug({ err: error }, 'a Responses WebSocket closed on a protocol error'));
    ws.once('close', () => this.#closed());
    this.#lifetime = setTimeout(() => this.close(CLOSE_NORMAL, 'server.websocket.max_lifetime_s reached; open a new socket'), limits.lifetimeMs).unref();
    this.#ping = setInterval(() => this.#checkAlive(), PING_INTERVAL_MS).unref();
    this.#armIdle();
  }

  /** Closes the socket now when idle, else once its running turn ends. */
  close(code: number, reason: string): void {
    this.#closing ??= { code, reason };
    if (!this.#turn) this.#ws.close(this.#closing.code, this.#closing.reason);
  }

  /** The shutdown's drain time ran out: the running response ends now, with its error event. */
  cut(): void {
    this.#turn?.cut();
  }

  /** Closes the socket without a closing handshake (a client that does not answer one). */
  terminate(): void {
    this.#ws.terminate();
  }

  #receive(data: RawData, isBinary: boolean): void {
    // Any message is activity: an idle socket's time starts again.
    if (!this.#turn) this.#armIdle();
    const message = isBinary ? undefined : parseMessage(data);
    if (!message) return this.#protocolError('Send each event as one text message holding a JSON object.', 'invalid_event', null);
    if (message.json.type !== 'response.create') {
      return this.#protocolError(`Unknown event type ${JSON.stringify(message.json.type)}: the only event a client sends is "response.create".`, 'unknown_event_type', 'type');
    }
    if (this.#closing) return this.#protocolError('This socket is closing; open a new one.', 'socket_closing', null, 503);
    if (this.#turn) {
      return this.#protocolError('A response is already running on this socket: send the next response.create after its last event, or open another socket.', 'response_in_progress', null, 409);
    }
    this.#start(message);
  }

  #start(message: { text: string; json: Record<string, unknown> }): void {
    const { type: _event, ...create } = message.json;
    const requestId = newRequestId();
    if (create.generate === false) {
      for (const event of this.#conversation.warmUp(create, requestId)) this.#ws.send(JSON.stringify(event));
      return this.#armIdle();
    }
    clearTimeout(this.#idle);
    // Every answer on a socket streams, whatever the body says (clients send `stream: true`, or nothing).
    // The text is the body's own (the message less its event type), which a same-dialect target is relayed.
    const body: JsonBody = { text: spliceTopLevel(message.text, { type: undefined, stream: 'true' }), json: { ...create, stream: true } };
    const headers = sessionIdOf(this.#headers, create) === undefined ? { ...this.#headers, 'x-switchyard-session': this.#sessionId } : this.#headers;
    const request: Inbound = { headers, transport: 'websocket', readBody: async () => body, readSmallBody: async () => body };
    const endpoint = this.#conversation.endpoint;
    const reply = new WebSocketReply({ ws: this.#ws, closed: this.closed }, requestId, endpoint, this.#deps.logger);
    this.#turn = reply;
    serveRequest(request, reply, requestId, endpoint, this.#deps.serving)
      .catch((error: unknown) => this.#deps.logger.error({ err: error, requestId }, 'a WebSocket response failed to finish'))
      .finally(() => this.#ended(reply));
  }

  #ended(reply: WebSocketReply): void {
    this.#turn = undefined;
    if (reply.closesSocket) this.close(CLOSE_INTERNAL_ERROR, 'the response failed after it began; open a new socket');
    else if (this.#closing) this.#ws.close(this.#closing.code, this.#closing.reason);
    else this.#armIdle();
  }

  #closed(): void {
    clearTimeout(this.#idle);
    clearTimeout(this.#lifetime);
    clearInterval(this.#ping);
    this.#turn?.caller.abort(CALLER_LEFT);
  }

  #armIdle(): void {
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => this.close(CLOSE_NORMAL, 'idle for server.websocket.idle_s'), this.#limits.idleMs).unref();
  }

  #checkAlive(): void {
    if (!this.#ponged) return this.#ws.terminate();
    this.#ponged = false;
    this.#ws.ping();
  }

  /** A message that is no request: answered with an error event, in the shape of the API's errors. */
  #protocolError(message: string, code: string, param: string | null, status = 400): void {
    const type = status >= 500 ? 'server_error' : 'invalid_request_error';
    this.#ws.send(JSON.stringify({ type: 'error', status, error: { type, code, message, param } }));
  }
}

/** A text message holding a JSON object, with its text (the request body's, for the record). */
function parseMessage(data: RawData): { text: string; json: Record<string, unknown> } | undefined {
  const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as Buffer).toString('utf8');
  try {
    const json: unknown = JSON.parse(text);
    return json !== null && typeof json === 'object' && !Array.isArray(json) ? { text, json: json as Record<string, unknown> } : undefined;
  } catch {
    return undefined;
  }
}
