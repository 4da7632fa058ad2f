import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
server: { websocket: false }
${MOCK_CONNECTIONS}
routes:
  chat: { targets: [{ connection: mock-openai, model: gpt-mock }] }
`);
});
afterAll(() => gateway.close());

/** Sends `head` on a raw socket; resolves with everything the gateway sent until it closed. */
function rawExchange(head: string): Promise<{ text: string }> {
  const { port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error('the gateway neither answered nor closed within 10 s'));
    }, 10_000);
    socket.on('connect', () => socket.write(head));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ text: Buffer.concat(chunks).toString('utf8') });
    });
  });
}

const upgrade = (path: string) =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
  `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer unused\r\n\r\n`;

it('answers 426 at once, says to use HTTP POST with stream: true, and closes the socket', async () => {
  const { text } = await rawExchange(upgrade('/v1/responses'));
  const [head, body] = text.split('\r\n\r\n') as [string, string];
  expect(head.split('\r\n')[0]).toBe('HTTP/1.1 426 Upgrade Required');
  expect(head.toLowerCase()).toContain('connection: close');
  expect(head.toLowerCase()).toMatch(/x-request-id: req_/);
  const error = (JSON.parse(body) as { error: { code: string; message: string; type: string } }).error;
  expect(error).toMatchObject({ code: 'websocket_not_supported', type: 'invalid_request_error' });
  expect(error.message).toContain('POST /v1/responses');
  expect(error.message).toContain('"stream": true');
  // No provider, key or store is consulted (how fast that makes it is not a loaded machine's test).
  expect(gateway.mock.attemptsFor('gpt-mock')).toHaveLength(0);
});

it('answers a plain GET on the path as a wrong method', async () => {
  const response = await fetch(`${gateway.url}/v1/responses`, { signal: AbortSignal.timeout(5_000) });
  expect(response.status).toBe(405);
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed');
});
