import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  hedged:
    hedge: { after_ms: 300 }
    targets:
      - { connection: mock-openai, model: "slow?first_token_ms=3000" }
      - { connection: mock-openai, model: standby }
`);
});
afterAll(() => gateway.close());

// At 300 ms only 200 ms of the caller's 500 are left: less than the original had, so no hedge.
it('a hedge is not started when the time left is shorter than after_ms', async () => {
  const response = await postChat(gateway.url, { model: 'hedged', stream: true, messages: hello }, { 'x-request-timeout-ms': '500' });
  await response.text();
  expect(response.status).toBe(504);
  expect(gateway.mock.attemptsFor('standby')).toHaveLength(0);
  expect(gateway.mock.attemptsFor('slow')).toHaveLength(1);
  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts).toMatchObject([{ n: 1, kind: 'timeout' }]);
  expect(record.attempts[0]).not.toHaveProperty('hedge');
});
