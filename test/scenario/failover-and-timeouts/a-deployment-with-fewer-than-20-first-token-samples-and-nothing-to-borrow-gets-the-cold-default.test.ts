import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { startScriptedUpstream, warmUp, type ScriptedUpstream } from '../first-token-helpers.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

const MIN_MS = 300;
const MAX_MS = 1_500;

let upstream: ScriptedUpstream;
let gateway: TestGateway;

/** One route per case, so each primary has exactly the samples its case gives it. */
const route = (name: string) => `
  ${name}:
    timeouts: { first_token_ms: auto, first_token_min_ms: ${MIN_MS}, first_token_max_ms: ${MAX_MS} }
    targets:
      - { connection: scripted, model: ${name} }
      - { connection: mock-openai, model: standby-${name} }`;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  scripted: { provider: openai-compatible, base_url: "${upstream.baseUrl}", api_key: scripted-key }
  mock-openai: { provider: mock, dialect: openai }
routes:${route('cold')}${route('nearly-warm')}
`);
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

// Too few samples say nothing of a deployment's slow end: until it has 20, and with nothing to borrow
// (no other deployment here has 20), `auto` gives the cold default: 8 s, clamped here to the route's maximum.
it.each([
  [0, 'cold'],
  [19, 'nearly-warm'],
])('a silent primary with %i first-token samples (%s) is waited for the cold default before failover', async (samples, name) => {
  await warmUp(gateway.url, name, samples, `scripted/${name}`);
  upstream.silent.add(name);

  const startedAt = Date.now();
  const response = await postChat(gateway.url, { model: name, stream: true, messages: hello });
  await response.text();
  const elapsedMs = Date.now() - startedAt;

  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe(`mock-openai/standby-${name}`);
  expect(elapsedMs).toBeGreaterThanOrEqual(MAX_MS);
  expect(upstream.seen.filter((request) => request.model === name)).toHaveLength(samples + 1);
  expect(gateway.mock.attemptsFor(`standby-${name}`)).toHaveLength(1);

  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts).toMatchObject([
    { n: 1, connection: 'scripted', kind: 'timeout', error_type: 'first_token', first_token_timeout_ms: MAX_MS, first_token_source: 'cold' },
    { n: 2, connection: 'mock-openai', kind: 'ok' },
  ]);
});
