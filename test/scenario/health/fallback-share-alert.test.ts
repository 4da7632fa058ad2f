import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { startAlertWebhook, type AlertWebhook } from '../health-helpers.js';
import { eventually, hello } from '../scenario-helpers.js';

let gateway: TestGateway;
let webhook: AlertWebhook;

beforeAll(async () => {
  webhook = await startAlertWebhook();
  gateway = await startGateway(`
alerts: { webhook_url: "${webhook.url}", fallback_share: 0.2, fallback_share_for_s: 1 }
${MOCK_CONNECTIONS}
routes:
  quietly-on-standby:
    retries: 0
    health: { consecutive_failures: 100, min_requests: 1000 }
    targets:
      - { connection: mock-openai, model: "primary-fs?status=503" }
      - { connection: mock-anthropic, model: standby-fs }
`);
});
afterAll(async () => {
  await gateway.close();
  await webhook.close();
});

it('a standby carrying more than alerts.fallback_share of a route for fallback_share_for_s raises an alert', async () => {
  for (let index = 0; index < 12; index++) {
    const response = await postChat(gateway.url, { model: 'quietly-on-standby', messages: hello });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/standby-fs');
  }
  await eventually(() => webhook.alerts.some((alert) => alert.type === 'fallback_share'), 5_000);
  const alert = webhook.alerts.find((candidate) => candidate.type === 'fallback_share')!;
  expect(alert).toMatchObject({ type: 'fallback_share', route: 'quietly-on-standby' });
  expect(alert.reason).toMatch(/100% of answers served by fallback/);
  const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
  expect(metrics).toMatch(/switchyard_fallback_share\{route="quietly-on-standby"\} 1/);
});
