import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  flaky:
    retries: 0
    health: { consecutive_failures: 2, eject_base_s: 120 }
    targets:
      - { connection: mock-openai, model: "flaky-primary?status=503" }
      - { connection: mock-anthropic, model: standby }
`);
  client = openAiClient(gateway.url);
});
afterAll(() => gateway.close());

const ask = () => client.chat.completions.create({ model: 'flaky', messages: hello }).withResponse();

it('a request that passes over an ejected primary records it under skipped, with the reason, the failure that ejected it and when the ejection ends', async () => {
  // Two 503s eject the primary; both requests fail over and record no skip.
  for (let i = 0; i < 2; i++) {
    const { response } = await ask();
    const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
    expect(record.attempts).toHaveLength(2);
    expect(record).not.toHaveProperty('skipped');
  }
  expect(gateway.mock.attemptsFor('flaky-primary')).toHaveLength(2);

  const beforeMs = Date.now();
  const third = await ask();
  expect(third.data.choices[0]!.message.content).toBe(mockAnswerText(8));
  expect(third.response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/standby');
  expect(third.response.headers.get('x-switchyard-attempts')).toBe('1');
  // The ejected primary was not contacted.
  expect(gateway.mock.attemptsFor('flaky-primary')).toHaveLength(2);
  expect(gateway.mock.attemptsFor('standby')).toHaveLength(3);

  const record = await fetchRecord(gateway.url, third.response.headers.get('x-request-id')!);
  expect(record.attempts).toMatchObject([{ n: 1, connection: 'mock-anthropic', model: 'standby', kind: 'ok' }]);
  expect(record.skipped).toEqual([{ connection: 'mock-openai', model: 'flaky-primary?status=503', reason: 'ejected', kind: 'server_error', until_ms: expect.any(Number) }]);
  // Ejected for eject_base_s (120 s) from the second failure, give or take jitter.
  const untilMs = record.skipped![0]!.until_ms!;
  expect(untilMs).toBeGreaterThan(beforeMs + 60_000);
  expect(untilMs).toBeLessThan(beforeMs + 240_000);
});
