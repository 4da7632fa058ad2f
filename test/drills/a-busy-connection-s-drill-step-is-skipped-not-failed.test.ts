import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { startAlertWebhook, type AlertWebhook } from '../scenario/health-helpers.js';
import { ADMIN_TOKEN, eventually, hello, metricsText, metricValue } from '../scenario/scenario-helpers.js';
import { drill } from './drill-helpers.js';

let gateway: TestGateway;
let webhook: AlertWebhook;

beforeAll(async () => {
  webhook = await startAlertWebhook();
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
alerts: { webhook_url: "${webhook.url}" }
drills: { interval_s: 0 }
connections:
  narrow: { provider: mock, dialect: openai, max_in_flight: 1 }
routes:
  held: { targets: [{ connection: narrow, model: "held-open?first_token_ms=2000" }] }
  drilled: { targets: [{ connection: narrow, model: drilled-narrow }] }
`);
});
afterAll(async () => {
  await gateway.close();
  await webhook.close();
});

it('a step whose connection is at its in-flight limit is skipped: no request, no finding', async () => {
  const caller = postChat(gateway.url, { model: 'held', messages: hello });
  await eventually(() => gateway.mock.attemptsFor('held-open').length === 1, 5_000, 'the caller to hold the connection');

  const run = await drill(gateway.url, 'drilled');
  expect(run.steps).toMatchObject([{ route: 'drilled', step: 'target', position: 1, connection: 'narrow', model: 'drilled-narrow', result: 'skipped', kind: 'busy' }]);
  expect(run.steps[0]!.message).toMatch(/in-flight limit/);
  expect(gateway.mock.attemptsFor('drilled-narrow')).toHaveLength(0);

  expect((await caller).status).toBe(200);
  await gateway.app.alerts.flush();
  expect(webhook.alerts.filter((alert) => alert.type === 'drill_failed')).toEqual([]);
  expect(metricValue(await metricsText(gateway.url), 'switchyard_drill_failures_total')).toBeUndefined();

  // With the connection free again, the same step passes.
  expect((await drill(gateway.url, 'drilled')).steps).toMatchObject([{ result: 'ok' }]);
});
