import { afterAll, beforeAll, expect, it } from 'vitest';
import { configChange } from '../../support/config-change.js';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { canaryDirectory, MOCK_REFERENCE, runCanary, writePrompts } from '../canary-helpers.js';
import { startAlertWebhook, type AlertWebhook } from '../health-helpers.js';
import { ADMIN_TOKEN, fetchRecord, metricsText, metricValue } from '../scenario-helpers.js';

const directory = canaryDirectory();
let gateway: TestGateway;
let webhook: AlertWebhook;

const configWith = (model: string, prompts: string) => `
admin: { token: ${ADMIN_TOKEN} }
alerts: { webhook_url: "${webhook.url}" }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  support-drafts:
    targets: [{ connection: mock-openai, model: "${model}" }]
canaries:
  support-drafts: { interval_s: 0, prompts: "${prompts}", baseline: 1, max_drop: 0.1 }
`;

let prompts: string;

beforeAll(async () => {
  webhook = await startAlertWebhook();
  prompts = writePrompts(directory.path, 'support-drafts.jsonl', [
    { question: 'Draft a reply to a refund request.', reference: MOCK_REFERENCE },
    { question: 'Draft a reply to a delivery complaint.', reference: MOCK_REFERENCE },
  ]);
  gateway = await startGateway(configWith('gpt-canary', prompts), { watch: true });
});
afterAll(async () => {
  await gateway.close();
  await webhook.close();
  directory.remove();
});

it('swapping the model for a degraded one makes the next canary run alert canary_drop, though every answer was a 200', async () => {
  const healthy = await runCanary(gateway.url, 'support-drafts');
  expect(healthy).toMatchObject({ route: 'support-drafts', score: 1, baseline: 1, threshold: 0.9, dropped: false });
  expect(healthy.prompts.map((prompt) => [prompt.index, prompt.score, prompt.served])).toEqual([
    [0, 1, 'mock-openai/gpt-canary'],
    [1, 1, 'mock-openai/gpt-canary'],
  ]);
  await gateway.app.alerts.flush();
  expect(webhook.alerts.filter((alert) => alert.type === 'canary_drop')).toEqual([]);

  const reloaded = configChange(gateway.configSource, (change) => change.event === 'reloaded');
  gateway.writeConfig(configWith('gpt-canary?degrade=0.5', prompts));
  await reloaded;

  const degraded = await runCanary(gateway.url, 'support-drafts');
  expect(degraded).toMatchObject({ route: 'support-drafts', score: 0.5, baseline: 1, threshold: 0.9, dropped: true });
  expect(degraded.prompts.every((prompt) => prompt.served === 'mock-openai/gpt-canary?degrade=0.5' && prompt.error === undefined)).toBe(true);
  await gateway.app.alerts.flush();
  const drops = webhook.alerts.filter((alert) => alert.type === 'canary_drop');
  expect(drops).toEqual([expect.objectContaining({ type: 'canary_drop', route: 'support-drafts', score: 0.5, baseline: 1, max_drop: 0.1, run_id: degraded.id })]);

  // What the callers' status codes would have shown: nothing wrong.
  for (const prompt of [...healthy.prompts, ...degraded.prompts]) {
    const record = await fetchRecord(gateway.url, prompt.request_id);
    expect(record).toMatchObject({ origin: 'canary', status: 'ok', http_status: 200, route: 'support-drafts' });
  }
  // What the provider saw: each prompt once per run, the degraded model after the reload.
  const seen = gateway.mock.attempts.map((attempt) => [attempt.model, attempt.outcome]);
  expect(seen).toEqual([
    ['gpt-canary', 'ok'],
    ['gpt-canary', 'ok'],
    ['gpt-canary?degrade=0.5', 'ok'],
    ['gpt-canary?degrade=0.5', 'ok'],
  ]);
  expect(metricValue(await metricsText(gateway.url), 'switchyard_canary_score', { route: 'support-drafts' })).toBe(0.5);
});
