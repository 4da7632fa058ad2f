import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { deploymentHealth } from '../health-helpers.js';
import { ADMIN_TOKEN, hello } from '../scenario-helpers.js';

let gateway: TestGateway;
const THROTTLED = 'mock-openai/throttled?status=429&retry_after=120';

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  support:
    targets:
      - { connection: mock-openai, model: "throttled?status=429&retry_after=120" }
      - { connection: mock-anthropic, model: standby }
`);
});
afterAll(() => gateway.close());

it('after a 429 with retry-after: 120, /admin/health shows the deployment cooling since the 429, for 120 s, and why', async () => {
  const response = await postChat(gateway.url, { model: 'support', messages: hello });
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/standby');
  await response.text();
  const [the429] = gateway.mock.attemptsFor('throttled');
  expect(gateway.mock.attemptsFor('throttled').map((attempt) => attempt.outcome)).toEqual(['status 429']);

  const row = await deploymentHealth(gateway.url, THROTTLED);
  const readAtMs = Date.now();
  expect(row).toMatchObject({
    connection: 'mock-openai',
    model: 'throttled?status=429&retry_after=120',
    state: 'cooling',
    reason: '429 rate_limit, retry-after 120 s',
    cooling_cause: { kind: 'rate_limit', http_status: 429, retry_after_ms: 120_000 },
    last_error: { kind: 'rate_limit' },
  });
  // Since the 429 came back (after the mock took the request), until its Retry-After runs out.
  expect(row.since).not.toBeNull();
  expect(Date.parse(row.since!)).toBeGreaterThanOrEqual(the429!.atMs);
  expect(Date.parse(row.since!)).toBeLessThanOrEqual(readAtMs);
  expect(Date.parse(row.cooling_until!) - Date.parse(row.since!)).toBe(120_000);
});
