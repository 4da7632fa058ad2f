import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/core/request-record.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { startAlertWebhook, type AlertWebhook } from '../scenario/health-helpers.js';
import { ADMIN_TOKEN, eventually, fetchRecord, hello, metricsText, metricValue } from '../scenario/scenario-helpers.js';
import { drill } from './drill-helpers.js';

let gateway: TestGateway;
let webhook: AlertWebhook;

beforeAll(async () => {
  webhook = await startAlertWebhook();
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
alerts: { webhook_url: "${webhook.url}", fallback_share: 0.1, fallback_share_for_s: 1 }
drills: { interval_s: 0 }
${MOCK_CONNECTIONS}
routes:
  two-deep:
    targets:
      - { connection: mock-openai, model: primary-origin }
      - { connection: mock-anthropic, model: standby-origin }
`);
});
afterAll(async () => {
  await gateway.close();
  await webhook.close();
});

async function listRecords(query: string): Promise<RequestRecord[]> {
  const response = await fetch(`${gateway.url}/admin/requests?${query}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, signal: AbortSignal.timeout(5_000) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: RequestRecord[] }).data;
}

it('drill steps are recorded with origin drill, and a chain step served by the fallback moves neither the fallback share nor its alert', async () => {
  const runs = [await drill(gateway.url), await drill(gateway.url), await drill(gateway.url)];
  const stepIds = runs.flatMap((run) => run.steps.map((step) => step.request_id!));
  expect(stepIds).toHaveLength(9);
  for (const id of stepIds) expect(await fetchRecord(gateway.url, id)).toMatchObject({ origin: 'drill', route: 'two-deep', status: 'ok' });
  const chainRecord = await fetchRecord(gateway.url, runs[0]!.steps.find((step) => step.step === 'chain')!.request_id!);
  expect(chainRecord.served).toMatchObject({ connection: 'mock-anthropic', model: 'standby-origin' });

  const callerIds: string[] = [];
  for (let index = 0; index < 10; index++) {
    const response = await postChat(gateway.url, { model: 'two-deep', messages: hello });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/primary-origin');
    callerIds.push(response.headers.get('x-request-id')!);
    await response.text();
  }

  // The callers' records are the route's caller-origin ones; the drill's are listed under their own origin.
  const callers = (await listRecords('route=two-deep&origin=caller&limit=100')).map((record) => record.id);
  expect(callers.sort()).toEqual([...callerIds].sort());
  const drills = (await listRecords('route=two-deep&origin=drill&limit=100')).map((record) => record.id);
  expect(drills.sort()).toEqual([...stepIds].sort());

  // Once the monitor has seen the callers' traffic (ten answers, its minimum), the share is theirs alone: all served by the
  // primary. Counted, the drill's three fallback answers would make it 3/19, above the alert threshold.
  await eventually(async () => metricValue(await metricsText(gateway.url), 'switchyard_fallback_share', { route: 'two-deep' }) !== undefined, 5_000, 'the fallback share');
  expect(metricValue(await metricsText(gateway.url), 'switchyard_fallback_share', { route: 'two-deep' })).toBe(0);
  expect(webhook.alerts.filter((alert) => alert.type === 'fallback_share')).toEqual([]);
});
