import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { startScriptedUpstream, warmUp, type ScriptedUpstream } from '../first-token-helpers.js';
import { ADMIN_TOKEN, fetchRecord, hello, sseContent } from '../scenario-helpers.js';

const MIN_MS = 300;
const MAX_MS = 10_000;

let upstream: ScriptedUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  scripted: { provider: openai-compatible, base_url: "${upstream.baseUrl}", api_key: scripted-key }
  mock-openai: { provider: mock, dialect: openai }
routes:
  learned:
    timeouts: { first_token_ms: auto, first_token_min_ms: ${MIN_MS}, first_token_max_ms: ${MAX_MS} }
    targets:
      - { connection: scripted, model: primary }
      - { connection: mock-openai, model: standby }
`);
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

// Once the primary has answered fast 25 times, its silence is recognised after the learned
// timeout (here the floor, as its answers took milliseconds), not after the configured maximum.
it('a deployment warmed with fast answers and then silent fails over after about first_token_min_ms, not first_token_max_ms', async () => {
  await warmUp(gateway.url, 'learned', 25, 'scripted/primary');
  upstream.silent.add('primary');

  const startedAt = Date.now();
  const response = await postChat(gateway.url, { model: 'learned', stream: true, messages: hello });
  const body = await response.text();
  const elapsedMs = Date.now() - startedAt;

  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/standby');
  expect(sseContent(body)).not.toBe('');
  // Not before first_token_min_ms (a timer never fires early). How soon after it the standby
  // answers is the silent-primary bench's to measure (bench/README.md), not a loaded machine's test.
  expect(elapsedMs).toBeGreaterThanOrEqual(MIN_MS);

  // The primary had the request and kept silent; the standby, with no samples of its own yet, answered it.
  expect(upstream.seen).toHaveLength(26);
  expect(upstream.seen.at(-1)).toEqual({ model: 'primary', stream: true });
  expect(gateway.mock.attemptsFor('standby')).toHaveLength(1);

  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts).toMatchObject([
    { n: 1, connection: 'scripted', kind: 'timeout', error_type: 'first_token', first_token_timeout_ms: MIN_MS, first_token_ms: null },
    { n: 2, connection: 'mock-openai', kind: 'ok', first_token_timeout_ms: MAX_MS },
  ]);
  expect(record.attempts[0]!.latency_ms).toBeLessThan(MIN_MS + 1_000);
});
