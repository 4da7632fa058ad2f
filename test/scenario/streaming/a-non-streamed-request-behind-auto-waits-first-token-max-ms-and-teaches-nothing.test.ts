import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../first-token-helpers.js';
import { deploymentHealth } from '../health-helpers.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

const MAX_MS = 1_500;

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
    timeouts: { first_token_ms: auto, first_token_min_ms: 300, first_token_max_ms: ${MAX_MS} }
    targets:
      - { connection: scripted, model: primary }
      - { connection: mock-openai, model: standby }
`);
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

// A whole answer's wait is its whole generation, which grows with its length: it is no
// first-token time, so it is neither learned from nor cut short by what streams taught.
it('a non-streamed request behind auto is not sampled and waits first_token_max_ms for its answer', async () => {
  for (let sent = 0; sent < 25; sent++) {
    const response = await postChat(gateway.url, { model: 'learned', messages: hello });
    expect(response.status).toBe(200);
    const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
    expect(record.attempts).toMatchObject([{ connection: 'scripted', kind: 'ok', first_token_timeout_ms: MAX_MS }]);
  }
  expect(upstream.seen.filter((request) => !request.stream)).toHaveLength(25);
  expect((await deploymentHealth(gateway.url, 'scripted/primary')).first_token).toMatchObject({ samples: 0, timeout_ms: { learned: MAX_MS } });

  upstream.silent.add('primary');
  const startedAt = Date.now();
  const response = await postChat(gateway.url, { model: 'learned', messages: hello });
  await response.text();
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/standby');
  expect(Date.now() - startedAt).toBeGreaterThanOrEqual(MAX_MS);
  expect(gateway.mock.attemptsFor('standby')).toHaveLength(1);
});
