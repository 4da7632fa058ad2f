import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello, metricsText, metricValue, settledOutcome, sseContent } from '../scenario-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  hedged:
    hedge: { after_ms: 100 }
    targets:
      - { connection: mock-openai, model: "original?first_token_ms=400" }
      - { connection: mock-openai, model: "hedge?first_token_ms=5000" }
`);
});
afterAll(() => gateway.close());

it('an original that reaches its first token before its hedge answers, and the hedge is aborted and recorded cancelled', async () => {
  const startedAt = Date.now();
  const response = await postChat(gateway.url, { model: 'hedged', stream: true, messages: hello });
  const body = await response.text();
  expect(response.status).toBe(200);
  expect(sseContent(body)).not.toBe('');
  expect(Date.now() - startedAt).toBeLessThan(2_500);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/original?first_token_ms=400');
  const [hedge] = gateway.mock.attemptsFor('hedge');
  expect(await settledOutcome(hedge!)).toBe('client_closed');

  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts).toMatchObject([
    { n: 1, kind: 'ok', committed: true },
    { n: 2, kind: 'cancelled', committed: false, hedge: true },
  ]);
  expect(metricValue(await metricsText(gateway.url), 'switchyard_hedges_total', { route: 'hedged', outcome: 'lost' })).toBe(1);
});
