import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { deploymentHealth, startAlertWebhook, type AlertWebhook } from '../health-helpers.js';
import { ADMIN_TOKEN, eventually, hello, metricValue, metricsText } from '../scenario-helpers.js';

let gateway: TestGateway;
let webhook: AlertWebhook;

// The provider reports a 1000 limit for 3 requests, then 500: an account's limit cut while
// traffic holds steady.
const MODEL = 'stepping?ratelimit=1000&ratelimit_after=500&times=3';
const DEPLOYMENT = `mock-openai/${MODEL}`;

beforeAll(async () => {
  webhook = await startAlertWebhook();
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
alerts: { webhook_url: "${webhook.url}" }
${MOCK_CONNECTIONS}
routes:
  metered:
    targets:
      - { connection: mock-openai, model: "${MODEL}" }
`);
});
afterAll(async () => {
  await gateway.close();
  await webhook.close();
});

it('a rate limit stepping down while traffic holds raises a limit_step_down alert (once per limit), and the quota is visible', async () => {
  for (let n = 1; n <= 5; n++) {
    const response = await postChat(gateway.url, { model: 'metered', messages: hello });
    await response.text();
    expect(response.status, `request ${n}`).toBe(200);
    expect(response.headers.get('x-switchyard-served-by'), `request ${n}`).toBe(DEPLOYMENT);
  }
  // What the provider said: 1000 three times, then 500.
  const seen = gateway.mock.attemptsFor('stepping');
  expect(seen).toHaveLength(5);
  expect(seen.every((attempt) => attempt.outcome === 'ok')).toBe(true);

  await eventually(() => webhook.alerts.some((alert) => alert.type === 'limit_step_down'), 3_000, 'a limit_step_down alert');
  await gateway.app.alerts.flush();
  const stepDowns = webhook.alerts.filter((alert) => alert.type === 'limit_step_down');
  // The mock cuts both of its limit families (requests and tokens) at once: one alert per limit
  // that stepped down, and one cut is reported once (the 5th request, still 500, adds nothing).
  expect(stepDowns.map((alert) => /\b(requests|tokens)\b/.exec(alert.reason)?.[1]).sort()).toEqual(['requests', 'tokens']);
  for (const alert of stepDowns) {
    expect(alert).toMatchObject({ deployment: DEPLOYMENT, connection: 'mock-openai' });
    expect(alert.reason).toMatch(/from 1000 to 500/);
    // Sent when the cut was first seen: the 4th response.
    expect(Math.abs(Date.parse(alert.since) - seen[3]!.atMs)).toBeLessThan(1_000);
  }
  expect(webhook.unparsable).toEqual([]);

  // /admin/health shows the latest quota snapshot (limit 500, remaining 499).
  const health = await deploymentHealth(gateway.url, DEPLOYMENT);
  expect(health.state).toBe('healthy');
  expect(health.quota).toMatchObject({ requests: { limit: 500, remaining: 499 } });

  // /metrics has the remaining count for the deployment (the gauge is refreshed by the monitor).
  await eventually(
    async () => metricValue(await metricsText(gateway.url), 'switchyard_ratelimit_remaining', { deployment: DEPLOYMENT, limit: 'requests' }) === 499,
    3_000,
    'switchyard_ratelimit_remaining for the deployment',
  );
});
