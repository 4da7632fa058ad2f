import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../support/start-gateway.js';
import { startAlertWebhook, type AlertWebhook } from '../scenario/health-helpers.js';
import { ADMIN_TOKEN, eventually, settledOutcome } from '../scenario/scenario-helpers.js';
import { latestDrill } from './drill-helpers.js';

let gateway: TestGateway;
let webhook: AlertWebhook;

beforeAll(async () => {
  webhook = await startAlertWebhook();
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
alerts: { webhook_url: "${webhook.url}" }
drills: { interval_s: 1 }
${MOCK_CONNECTIONS}
routes:
  slow-chain:
    targets:
      - { connection: mock-openai, model: "slow-at-shutdown?first_token_ms=20000" }
      - { connection: mock-anthropic, model: never-reached-at-shutdown }
`);
});
afterAll(async () => {
  await webhook.close();
});

it('closing the gateway cuts a scheduled drill short at once: the step in flight and those not run are no findings', async () => {
  await eventually(() => gateway.mock.attemptsFor('slow-at-shutdown').length === 1, 5_000, 'the scheduled drill to reach its first target');
  const running = (await latestDrill(gateway.url))!;
  expect(running).toMatchObject({ finished_at: null, steps: [] });

  const closingAtMs = Date.now();
  await gateway.close();
  expect(Date.now() - closingAtMs).toBeLessThan(5_000);
  expect(await settledOutcome(gateway.mock.attemptsFor('slow-at-shutdown')[0]!)).toBe('client_closed');
  expect(gateway.mock.attemptsFor('never-reached-at-shutdown')).toHaveLength(0);
  // close() flushes the alerts: a finding would have been delivered by now.
  expect(webhook.alerts.filter((alert) => alert.type === 'drill_failed')).toEqual([]);
});
