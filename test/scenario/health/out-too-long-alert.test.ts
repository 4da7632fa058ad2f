import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { startAlertWebhook, type AlertWebhook } from '../health-helpers.js';
import { eventually, hello } from '../scenario-helpers.js';

let gateway: TestGateway;
let webhook: AlertWebhook;

const EJECTED = 'mock-openai/long-out?status=503';

beforeAll(async () => {
  webhook = await startAlertWebhook();
  gateway = await startGateway(`
alerts: { webhook_url: "${webhook.url}", ejected_for_s: 1 }
${MOCK_CONNECTIONS}
routes:
  long-outage:
    retries: 0
    health: { consecutive_failures: 2, eject_base_s: 30 }
    targets:
      - { connection: mock-openai, model: "long-out?status=503" }
      - { connection: mock-anthropic, model: long-out-standby }
`);
});
afterAll(async () => {
  await gateway.close();
  await webhook.close();
});

it('a deployment ejected for longer than alerts.ejected_for_s raises an out_too_long alert', async () => {
  for (let n = 1; n <= 2; n++) {
    const response = await postChat(gateway.url, { model: 'long-outage', messages: hello });
    await response.text();
    expect(response.status).toBe(200);
  }
  expect(gateway.mock.attemptsFor('long-out')).toHaveLength(2);
  const ejectedAtMs = gateway.mock.attemptsFor('long-out')[1]!.atMs;

  await eventually(() => webhook.alerts.some((alert) => alert.type === 'out_too_long'), 3_500, 'an out_too_long alert');
  const receivedAtMs = Date.now();
  const alert = webhook.alerts.find((candidate) => candidate.type === 'out_too_long')!;
  expect(alert).toMatchObject({ deployment: EJECTED, connection: 'mock-openai', new_state: 'ejected' });
  expect(alert.reason).toEqual(expect.any(String));
  // `since` is when the ejection began, not when the alert was sent.
  expect(Math.abs(Date.parse(alert.since) - ejectedAtMs)).toBeLessThan(500);
  // Not before ejected_for_s had passed.
  expect(receivedAtMs - ejectedAtMs).toBeGreaterThanOrEqual(1_000);

  // Once per episode: the next monitor passes do not repeat it.
  await gateway.app.monitor.tick();
  await gateway.app.alerts.flush();
  expect(webhook.alerts.filter((candidate) => candidate.type === 'out_too_long')).toHaveLength(1);
  expect(webhook.unparsable).toEqual([]);
});
