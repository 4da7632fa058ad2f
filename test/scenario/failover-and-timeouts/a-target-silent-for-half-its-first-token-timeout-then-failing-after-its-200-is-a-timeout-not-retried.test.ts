import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

const FIRST_TOKEN_MS = 1_000;
/** Past half the first-token timeout (60 % of it), well before it would fire. */
const SILENCE_MS = 600;

/**
 * An upstream that is silent for `SILENCE_MS`, each model failing its own way after that:
 * `ok-then-hang-up` sends its 200 at once, then closes the connection; `ok-then-empty-end` sends
 * its 200 at once, then ends the stream with no content and no finish; `silent-then-503` sends
 * nothing, then a 503.
 */
let upstream: Server;
const seen: string[] = [];
let gateway: TestGateway;

function fail(model: string, stream: boolean, response: ServerResponse): void {
  if (model === 'silent-then-503') {
    setTimeout(() => response.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"overloaded","type":"server_error"}}'), SILENCE_MS);
    return;
  }
  response.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
  response.flushHeaders();
  if (model === 'ok-then-hang-up') setTimeout(() => response.socket?.destroy(), SILENCE_MS);
  else setTimeout(() => response.end(stream ? 'data: [DONE]\n\n' : ''), SILENCE_MS);
}

beforeAll(async () => {
  upstream = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const { model, stream } = JSON.parse(body) as { model: string; stream?: boolean };
      seen.push(model);
      fail(model, stream === true, response);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const { port } = upstream.address() as AddressInfo;
  const route = (model: string) => `
  ${model}:
    retries: 1
    backoff: { base_ms: 10, max_ms: 20 }
    timeouts: { first_token_ms: ${FIRST_TOKEN_MS} }
    targets:
      - { connection: scripted, model: ${model} }
      - { connection: mock-openai, model: standby }`;
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
  scripted: { provider: openai-compatible, base_url: "http://127.0.0.1:${port}/v1", api_key: scripted-key }
routes:${route('ok-then-hang-up')}${route('ok-then-empty-end')}${route('silent-then-503')}
`);
});
afterAll(async () => {
  await gateway.close();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});
beforeEach(() => {
  seen.length = 0;
  gateway.mock.reset();
});

// Silence is a timeout wherever it happens: a same-target retry with fresh timers would make the
// caller wait for the silent target twice before the standby answers.
it.each([
  { model: 'ok-then-hang-up', stream: true, errorType: 'silent_hang_up', status: 200 },
  { model: 'ok-then-hang-up', stream: false, errorType: 'silent_hang_up', status: 200 },
  { model: 'ok-then-empty-end', stream: true, errorType: 'silent_then_failed', status: 200 },
  { model: 'silent-then-503', stream: true, errorType: 'silent_then_failed', status: 503 },
  { model: 'silent-then-503', stream: false, errorType: 'silent_then_failed', status: 503 },
])('$model (stream: $stream) is a timeout, failed over without a same-target retry', async ({ model, stream, errorType, status }) => {
  const response = await postChat(gateway.url, { model, stream, messages: hello });
  await response.text();

  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/standby');
  expect(seen).toEqual([model]);
  expect(gateway.mock.attemptsFor('standby')).toHaveLength(1);
  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts).toMatchObject([
    { n: 1, connection: 'scripted', kind: 'timeout', error_type: errorType, http_status: status },
    { n: 2, connection: 'mock-openai', kind: 'ok' },
  ]);
});
