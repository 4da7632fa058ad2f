import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredResponse } from '../idempotency/idempotency-store.js';
import { sendReplay } from './send-replay.js';

let server: Server | undefined;

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function replayed(stored: StoredResponse): Promise<Response> {
  server = createServer((_request, response) => sendReplay(response, stored));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return fetch(`http://127.0.0.1:${port}/`);
}

describe('sendReplay', () => {
  it('replays a JSON response with its status and headers, marked as replayed', async () => {
    const response = await replayed({ status: 400, headers: { 'x-switchyard-attempts': '2' }, body: '{"error":{"code":"context_length_exceeded"}}' });
    expect(response.status).toBe(400);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(response.headers.get('x-switchyard-attempts')).toBe('2');
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.text()).toBe('{"error":{"code":"context_length_exceeded"}}');
  });

  it('replays a stream as server-sent events, verbatim', async () => {
    const sse = 'data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n';
    const response = await replayed({ status: 200, headers: {}, sse });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(await response.text()).toBe(sse);
  });
});
