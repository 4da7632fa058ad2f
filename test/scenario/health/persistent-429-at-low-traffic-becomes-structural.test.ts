import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { deploymentHealth } from '../health-helpers.js';
import { ADMIN_TOKEN, eventually, hello } from '../scenario-helpers.js';

let gateway: TestGateway;

const PERSIST_MS = 500;
const THROTTLED = 'mock-openai/no-capacity?status=429&retry_after_ms=100';

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  starved:
    health: { persist_429_s: 0.5 }
    targets:
      # Always 429 with a short Retry-After: it cools for 100 ms, then refuses again.
      - { connection: mock-openai, model: "no-capacity?status=429&retry_after_ms=100" }
      # The same model elsewhere: each 429 fails over at once instead of waiting out its Retry-After.
      - { connection: mock-anthropic, model: capacity-standby, model_change: false }
`);
});
afterAll(() => gateway.close());

const ask = async () => {
  const response = await postChat(gateway.url, { model: 'starved', messages: hello });
  await response.text();
  return response;
};

it('429s that go on past persist_429_s at a low request rate put the deployment in a structural state', async () => {
  const first = await ask();
  expect(first.status).toBe(200);
  expect(first.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/capacity-standby');
  expect(gateway.mock.attemptsFor('no-capacity')).toHaveLength(1);
  const firstThrottledAtMs = gateway.mock.attemptsFor('no-capacity')[0]!.atMs;

  // One 429 is cooling, not structural.
  expect((await deploymentHealth(gateway.url, THROTTLED)).state).not.toBe('structural');

  // Wait until the Retry-After is over and the 429s have gone on for longer than persist_429_s.
  await eventually(async () => (await deploymentHealth(gateway.url, THROTTLED)).cooling_until === null, 2_000, 'cooling to end');
  await eventually(() => Date.now() - firstThrottledAtMs > PERSIST_MS + 100, 2_000, 'persist_429_s to pass');

  // Still refusing, at 2 requests a minute: no longer congestion, a structural fault.
  const second = await ask();
  expect(second.status).toBe(200);
  expect(second.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/capacity-standby');
  expect(gateway.mock.attemptsFor('no-capacity')).toHaveLength(2);
  expect(gateway.mock.attemptsFor('no-capacity')[1]!.outcome).toBe('status 429');

  const faulted = await deploymentHealth(gateway.url, THROTTLED);
  expect(faulted).toMatchObject({ state: 'structural', structural_cause: 'persistent_429', last_error: { kind: 'rate_limit' } });
  expect(faulted.reason.length).toBeGreaterThan(0);

  // Structural is not cooling: once the last Retry-After is over, it is still not contacted.
  await eventually(async () => (await deploymentHealth(gateway.url, THROTTLED)).cooling_until === null, 2_000, 'cooling to end');
  const third = await ask();
  expect(third.status).toBe(200);
  expect(third.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/capacity-standby');
  expect(third.headers.get('x-switchyard-attempts')).toBe('1');
  expect(gateway.mock.attemptsFor('no-capacity')).toHaveLength(2);
  expect(gateway.mock.attemptsFor('capacity-standby')).toHaveLength(3);
  expect((await deploymentHealth(gateway.url, THROTTLED)).state).toBe('structural');
});
