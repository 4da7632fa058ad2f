import { connect, type Socket } from 'node:net';

/**
 * One TCP connection to a gateway, spoken to in raw HTTP/1.1: for what `fetch` will not do —
 * send a body slowly, stop halfway, pipeline, or keep a socket idle and see when it is closed.
 */
export interface RawConnection {
  readonly socket: Socket;
  /** Everything received so far, as text. */
  readonly received: string;
  /** `Date.now()` when the connection closed. */
  readonly closed: Promise<number>;
  send(text: string): void;
  /** Resolves once what was received satisfies `predicate`; rejects if the connection closes first or after `timeoutMs`. */
  until(predicate: (received: string) => boolean, timeoutMs?: number): Promise<void>;
}

export async function openRawConnection(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (text: string) => (received += text));
  // A reset is one way for the gateway to close a connection: `closed` says when, either way.
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return {
    socket,
    get received() {
      return received;
    },
    closed,
    send: (text) => void socket.write(text),
    until(predicate, timeoutMs = 10_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!predicate(received)) return;
          finish();
          resolve();
        };
        const onClose = () => {
          finish();
          reject(new Error(`the connection closed first; received: ${received}`));
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`not received within ${timeoutMs} ms; received: ${received}`));
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          socket.off('data', check);
          socket.off('close', onClose);
        };
        socket.on('data', check);
        socket.once('close', onClose);
        check();
      });
    },
  };
}

/** The head of a JSON POST that announces a body of `bodyLength` bytes. */
export function postHead(path: string, bodyLength: number, headers: Record<string, string> = {}): string {
  const lines = Object.entries({ host: '127.0.0.1', 'content-type': 'application/json', 'content-length': String(bodyLength), ...headers });
  return `POST ${path} HTTP/1.1\r\n${lines.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
}

export interface ResponseHead {
  status: number;
  /** Lowercased names. */
  headers: Record<string, string>;
}

/** The status line and headers of every response in `received`, in order. */
export function responseHeads(received: string): ResponseHead[] {
  return [...received.matchAll(/HTTP\/1\.1 (\d{3})[^\r]*\r\n((?:[^\r]+\r\n)*)\r\n/g)].map((match) => ({
    status: Number(match[1]),
    headers: Object.fromEntries(
      match[2]!
        .split('\r\n')
        .filter((line) => line !== '')
        .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    ),
  }));
}
