import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { deploymentHealth } from '../health-helpers.js';
import { ADMIN_TOKEN, hello } from '../scenario-helpers.js';

let gateway: TestGateway;
const DOWN = 'mock-openai/down?status=503';

beforeAll(async () => {
  // The gateway runs in this process: its clock (Date) is moved past the ejection rather than waited out.
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  support:
    targets:
      - { connection: mock-openai, model: "down?status=503" }
      - { connection: mock-anthropic, model: standby }
`);
});
afterAll(async () => {
  await gateway.close();
  vi.useRealTimers();
});

async function ask(): Promise<void> {
  const response = await postChat(gateway.url, { model: 'support', messages: hello });
  expect(response.status).toBe(200);
  await response.text();
}

it('once the ejection time is over and no request has come, /admin/health says half_open, since the ejection ended, with the last try', async () => {
  // Default health: three 503s in a row eject it for 10 s (the route retries once, so it takes two or three requests).
  for (let n = 0; n < 3 && (await deploymentHealth(gateway.url, DOWN)).state !== 'ejected'; n++) await ask();
  const ejected = await deploymentHealth(gateway.url, DOWN);
  expect(ejected).toMatchObject({ state: 'ejected', reason: '3 consecutive failures', consecutive_ejections: 1 });
  const tries = gateway.mock.attemptsFor('down');
  expect(tries).toHaveLength(3);

  vi.setSystemTime(Date.parse(ejected.ejected_until!) + 1_000);
  const row = await deploymentHealth(gateway.url, DOWN);
  expect(row).toMatchObject({
    connection: 'mock-openai',
    model: 'down?status=503',
    state: 'half_open',
    since: ejected.ejected_until,
    reason: 'ejection time is up: waiting for its trial request',
    ejected_until: ejected.ejected_until,
    consecutive_ejections: 1,
    last_error: { kind: 'server_error' },
  });
  // The last try is the third attempt: sent after the second reached the mock, and before the third did.
  const lastTriedMs = Date.parse(row.last_tried_at!);
  expect(lastTriedMs).toBeGreaterThanOrEqual(tries[1]!.atMs);
  expect(lastTriedMs).toBeLessThanOrEqual(tries[2]!.atMs);
  // Saying so sent nothing: the next request is still the trial.
  expect(gateway.mock.attemptsFor('down')).toHaveLength(3);
});
