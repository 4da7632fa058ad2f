import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

const PRIMARY_FIRST_TOKEN_MS = 600;

let gateway: TestGateway;

// A bucket that never refills and earns nothing: its two starting tokens pay for two hedges, then it is empty.
beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  hedged:
    hedge: { after_ms: 100 }
    retry_budget: { ratio: 0, min_per_second: 0 }
    targets:
      - { connection: mock-openai, model: "slow?first_token_ms=${PRIMARY_FIRST_TOKEN_MS}" }
      - { connection: mock-openai, model: standby }
`);
});
afterAll(() => gateway.close());

it('hedges stop once the route retry budget is spent: the slow primary then answers alone', async () => {
  const servedBy: string[] = [];
  let last: Response | undefined;
  for (let request = 0; request < 3; request++) {
    last = await postChat(gateway.url, { model: 'hedged', stream: true, messages: hello });
    await last.text();
    expect(last.status).toBe(200);
    servedBy.push(last.headers.get('x-switchyard-served-by')!);
  }
  expect(servedBy).toEqual(['mock-openai/standby', 'mock-openai/standby', 'mock-openai/slow?first_token_ms=600']);
  expect(gateway.mock.attemptsFor('standby')).toHaveLength(2);
  expect(gateway.mock.attemptsFor('slow')).toHaveLength(3);

  const record = await fetchRecord(gateway.url, last!.headers.get('x-request-id')!);
  expect(record.attempts).toHaveLength(1);
  expect(record.attempts[0]).toMatchObject({ kind: 'ok' });
  expect(record.latency_ms).toBeGreaterThanOrEqual(PRIMARY_FIRST_TOKEN_MS);
});
