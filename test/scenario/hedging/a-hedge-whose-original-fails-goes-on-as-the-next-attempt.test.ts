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
    retries: 0
    hedge: { after_ms: 100 }
    targets:
      - { connection: mock-openai, model: "failing?headers_delay_ms=300&status=503" }
      - { connection: mock-openai, model: "hedge?first_token_ms=700" }
      - { connection: mock-openai, model: third }
`);
});
afterAll(() => gateway.close());

// The original fails while its hedge is still waiting for its first token: the loop does not fail
// over a second time (to the third target); the hedge is its next attempt and answers.
it('when the original fails before its hedge answers, the hedge answers and no further target is tried', async () => {
  const response = await postChat(gateway.url, { model: 'hedged', stream: true, messages: hello });
  await response.text();
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/hedge?first_token_ms=700');
  expect(gateway.mock.attemptsFor('failing')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('hedge')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('third')).toHaveLength(0);

  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts).toMatchObject([
    { n: 1, kind: 'server_error', http_status: 503 },
    { n: 2, kind: 'ok', hedge: true, committed: true },
  ]);
  expect(metricValue(await metricsText(gateway.url), 'switchyard_hedges_total', { route: 'hedged', outcome: 'won' })).toBe(1);
});
