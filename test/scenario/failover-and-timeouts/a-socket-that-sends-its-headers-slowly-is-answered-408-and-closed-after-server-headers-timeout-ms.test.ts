import { afterAll, beforeAll, expect, it } from 'vitest';
import { openRawConnection } from '../../support/raw-connection.js';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';

/**
 * A client that opens a connection and sends its headers slowly (or never finishes them) must not
 * hold a connection for long: `server.headers_timeout_ms` (default 10 s; 500 ms here so the test
 * is short) bounds it, then the gateway answers 408 and closes it. `body_timeout_ms` covers the
 * body only.
 */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
server: { headers_timeout_ms: 500 }
connections:
  mock: { provider: mock }
routes:
  r: { targets: [{ connection: mock, model: m }] }
`);
});
afterAll(() => gateway.close());

it('headers that never finish get 408 and the connection is closed', async () => {
  const connection = await openRawConnection(gateway.url);
  connection.send('POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n');
  // No blank line: the headers are never done. Only the bound ends this wait (the test's own timeout would fail it).
  await connection.closed;
  expect(connection.received).toMatch(/^HTTP\/1\.1 408 /);
});

it('headers that finish in time are served as usual', async () => {
  const connection = await openRawConnection(gateway.url);
  const body = JSON.stringify({ model: 'r', messages: [{ role: 'user', content: 'hi' }] });
  connection.send(`POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  await connection.closed;
  expect(connection.received).toMatch(/^HTTP\/1\.1 200 /);
});
