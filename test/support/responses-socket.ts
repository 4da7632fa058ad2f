import { afterEach } from 'vitest';
import WebSocket, { type ClientOptions } from 'ws';

/** A Responses WebSocket event as received: one JSON object per message. */
export type SocketEvent = Record<string, unknown> & { type: string };

/** How the gateway closed a socket. */
export interface SocketClose {
  code: number;
  reason: string;
}

/**
 * A WebSocket to a gateway's `/v1/responses`, spoken to as the Responses WebSocket mode is: one
 * `response.create` per turn, its events read until the turn's last.
 */
export interface ResponsesSocketClient {
  readonly ws: WebSocket;
  /** Every event received so far, in order. */
  readonly events: readonly SocketEvent[];
  readonly closed: Promise<SocketClose>;
  send(message: unknown): void;
  /** Sends a `response.create` with `body` and resolves with the turn's events (see `nextTurn`). */
  turn(body: Record<string, unknown>, timeoutMs?: number): Promise<SocketEvent[]>;
  /**
   * The events of the turn under way, from the first not yet read: up to `response.completed`,
   * `response.incomplete` or `response.failed`, or an `error` sent before the response began
   * (after it began, `response.failed` follows it); or whatever came before the socket closed.
   */
  nextTurn(timeoutMs?: number): Promise<SocketEvent[]>;
  /** Resolves once an event of `type` has arrived (from the first not yet read). */
  until(type: string, timeoutMs?: number): Promise<SocketEvent>;
}

/**
 * How a test file opens its sockets: each one is dropped after the test that opened it. Call it
 * at the file's top level.
 */
export function socketsDroppedAfterEach(): (gatewayUrl: string, headers?: Record<string, string>, options?: ClientOptions) => Promise<ResponsesSocketClient> {
  const open: ResponsesSocketClient[] = [];
  afterEach(() => {
    for (const client of open.splice(0)) client.ws.terminate();
  });
  return async (gatewayUrl, headers = {}, options = {}) => {
    const client = await openResponsesSocket(gatewayUrl, headers, options);
    open.push(client);
    return client;
  };
}

/** A handshake the gateway answered without upgrading. */
export interface RefusedHandshake {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function socketUrl(gatewayUrl: string): string {
  return `${gatewayUrl.replace(/^http/, 'ws')}/v1/responses`;
}

/** Opens a socket; rejects with the `RefusedHandshake` if the gateway answers the upgrade over HTTP. */
export function openResponsesSocket(gatewayUrl: string, headers: Record<string, string> = {}, options: ClientOptions = {}): Promise<ResponsesSocketClient> {
  const ws = new WebSocket(socketUrl(gatewayUrl), { headers, handshakeTimeout: 10_000, ...options });
  const events: SocketEvent[] = [];
  let read = 0;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of waiters) waiter();
  };
  ws.on('message', (data) => {
    events.push(JSON.parse(String(data)) as SocketEvent);
    wake();
  });
  const closed = new Promise<SocketClose>((resolve) =>
    ws.once('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      wake();
    }),
  );
  /** Resolves once `take` finds what it waits for among the unread events (undefined: not yet), or the socket has closed. */
  const waitFor = <T>(take: () => T | undefined, what: string, timeoutMs: number) =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const found = take();
        if (found !== undefined) return finish(() => resolve(found));
        if (ws.readyState === WebSocket.CLOSED) return finish(() => reject(new Error(`the socket closed before ${what}; events: ${types(events)}`)));
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`no ${what} within ${timeoutMs} ms; events: ${types(events)}`))), timeoutMs);
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        waiters.delete(check);
        settle();
      };
      waiters.add(check);
      check();
    });
  const client: ResponsesSocketClient = {
    ws,
    events,
    closed,
    send: (message) => ws.send(JSON.stringify(message)),
    turn(body, timeoutMs) {
      client.send({ type: 'response.create', ...body });
      return client.nextTurn(timeoutMs);
    },
    nextTurn(timeoutMs = 15_000) {
      return waitFor(
        () => {
          const unread = events.slice(read);
          const end = unread.findIndex((event, index) => isLast(event, events[read + index - 1]));
          const upTo = end >= 0 ? end + 1 : ws.readyState === WebSocket.CLOSED ? unread.length : -1;
          if (upTo < 0) return undefined;
          read += upTo;
          return unread.slice(0, upTo);
        },
        'the end of the turn',
        timeoutMs,
      );
    },
    until(type, timeoutMs = 15_000) {
      return waitFor(
        () => {
          const at = events.slice(read).findIndex((event) => event.type === type);
          if (at < 0) return undefined;
          read += at + 1;
          return events[read - 1];
        },
        `a ${type} event`,
        timeoutMs,
      );
    },
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('unexpected-response', (_request, response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => reject(Object.assign(new Error(`the upgrade was answered ${response.statusCode}`), { refused: { status: response.statusCode!, headers: response.headers, body } })));
    });
    ws.once('error', reject);
  });
}

/** The gateway's HTTP answer to an upgrade it refused; fails if it upgraded. */
export async function refusedHandshake(gatewayUrl: string, headers: Record<string, string> = {}): Promise<RefusedHandshake> {
  try {
    const client = await openResponsesSocket(gatewayUrl, headers);
    client.ws.close();
  } catch (error) {
    const refused = (error as { refused?: RefusedHandshake }).refused;
    if (refused) return refused;
    throw error;
  }
  throw new Error('the gateway upgraded the socket');
}

const RESPONSE_ENDS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** Whether `event` ends its turn; `previous` is the event received before it. */
function isLast(event: SocketEvent, previous: SocketEvent | undefined): boolean {
  if (RESPONSE_ENDS.has(event.type)) return true;
  // An error is a turn's only event when it came before the response began: first on the socket, or after another turn's end.
  return event.type === 'error' && (previous === undefined || previous.type === 'error' || RESPONSE_ENDS.has(previous.type));
}

function types(events: readonly SocketEvent[]): string {
  return events.map((event) => event.type).join(' ') || '(none)';
}
