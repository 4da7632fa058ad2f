import type { ServerResponse } from 'node:http';
import { SSE_HEADERS } from './heartbeat.js';
import type { StoredResponse } from '../idempotency/idempotency-store.js';

/** Sends a stored response again, marked `idempotent-replayed: true` (docs/lifecycle.md): a stream as a stream. */
export function sendReplay(response: ServerResponse, stored: StoredResponse): void {
  const headers = { ...stored.headers, 'idempotent-replayed': 'true' };
  if ('sse' in stored) {
    response.writeHead(stored.status, { ...headers, ...SSE_HEADERS });
    response.end(stored.sse);
    return;
  }
  response.writeHead(stored.status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(stored.body) });
  response.end(stored.body);
}
