import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

const FIRST_TOKEN_MS = 1_000;
/** Past half the first-token timeout (60 % of it), well before it would fire. */
const LATE_HANG_UP_MS = 600;

/**
 * An upstream that takes each request, answers nothing, and closes the connection: at once for
 * the model `hangs-up-at-once`, after `LATE_HANG_UP_MS` for `hangs-up-late`.
 */
let upstream: Server;
const seen: { model: string; atMs: number }[] = [];
let gateway: TestGateway;

beforeAll(async () => {
  upstream = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const { model } = JSON.parse(body) as { model: string };
      seen.push({ model, atMs: Date.now() });
      const hangUp = () => response.socket?.destroy();
      if (model === 'hangs-up-late') setTimeout(hangUp, LATE_HANG_UP_MS);
      else hangUp();
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const { port } = upstream.address() as AddressInfo;
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
  scripted: { provider: openai-compatible, base_url: "http://127.0.0.1:${port}/v1", api_key: scripted-key }
routes:
  late:
    retries: 1
    backoff: { base_ms: 10, max_ms: 20 }
    timeouts: { first_token_ms: ${FIRST_TOKEN_MS} }
    targets:
      - { connection: scripted, model: hangs-up-late }
      - { connection: mock-openai, model: late-standby }
  at-once:
    retries: 1
    backoff: { base_ms: 10, max_ms: 20 }
    timeouts: { first_token_ms: ${FIRST_TOKEN_MS} }
    targets:
      - { connection: scripted, model: hangs-up-at-once }
      - { connection: mock-openai, model: at-once-standby }
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

// A target that kept the request in silence for most of its first-token timeout and then hung up
// is a silent target: retrying it would make the caller wait a whole fresh timeout again.
it.each([false, true])('a target silent for 60 percent of first_token_ms that hangs up is a timeout, failed over at once (stream: %s)', async (stream) => {
  const startedAt = Date.now();
  const response = await postChat(gateway.url, { model: 'late', stream, messages: hello });
  await response.text();
  const elapsedMs = Date.now() - startedAt;

  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/late-standby');
  expect(response.headers.get('x-switchyard-attempts')).toBe('2');
  // One hang-up's worth of waiting, not two: the silent target was asked once (the time it took is
  // a loaded machine's to stretch, so the count says it, not the clock).
  expect(elapsedMs).toBeGreaterThanOrEqual(LATE_HANG_UP_MS);
  expect(seen.map((request) => request.model)).toEqual(['hangs-up-late']);
  expect(gateway.mock.attemptsFor('late-standby')).toHaveLength(1);

  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts).toMatchObject([
    { n: 1, connection: 'scripted', kind: 'timeout', error_type: 'silent_hang_up', http_status: null },
    { n: 2, connection: 'mock-openai', kind: 'ok' },
  ]);
});

it('a target that hangs up at once is still a connection failure, retried on the same target', async () => {
  const response = await postChat(gateway.url, { model: 'at-once', messages: hello });
  await response.text();

  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/at-once-standby');
  expect(response.headers.get('x-switchyard-attempts')).toBe('3');
  expect(seen.map((request) => request.model)).toEqual(['hangs-up-at-once', 'hangs-up-at-once']);

  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts.map((attempt) => [attempt.connection, attempt.kind])).toEqual([
    ['scripted', 'connection'],
    ['scripted', 'connection'],
    ['mock-openai', 'ok'],
  ]);
});
