import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello, metricsText, metricValue } from '../scenario-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  hedged:
    hedge: { after_ms: 1000 }
    targets:
      - { connection: mock-openai, model: primary }
      - { connection: mock-openai, model: standby }
`);
});
afterAll(() => gateway.close());

it('a primary that answers within after_ms is the only upstream request, streamed or whole', async () => {
  for (const stream of [true, false]) {
    const response = await postChat(gateway.url, { model: 'hedged', stream, messages: hello });
    await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/primary');
    const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
    expect(record.attempts).toHaveLength(1);
    expect(record.attempts[0]).toMatchObject({ kind: 'ok', committed: true });
    expect(record.attempts[0]).not.toHaveProperty('hedge');
  }
  expect(gateway.mock.attemptsFor('primary')).toHaveLength(2);
  expect(gateway.mock.attemptsFor('standby')).toHaveLength(0);
  expect(metricValue(await metricsText(gateway.url), 'switchyard_hedges_total')).toBeUndefined();
});
