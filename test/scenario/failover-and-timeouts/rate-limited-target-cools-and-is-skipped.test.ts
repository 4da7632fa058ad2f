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
  throttled:
    targets:
      - { connection: mock-openai, model: "throttled-primary?status=429&retry_after=2" }
      # The same model on another connection: the 429 fails over at once instead of waiting out its Retry-After.
      - { connection: mock-anthropic, model: other-connection-standby, model_change: false }
`);
  client = openAiClient(gateway.url);
});
afterAll(() => gateway.close());

const ask = () => client.chat.completions.create({ model: 'throttled', messages: hello }).withResponse();

it('a 429 fails over to another connection; the next request skips the cooling target entirely', async () => {
  const first = await ask();
  expect(first.data.choices[0]!.message.content).toBe(mockAnswerText(8));
  expect(first.response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/other-connection-standby');
  expect(first.response.headers.get('x-switchyard-attempts')).toBe('2');
  expect(gateway.mock.attemptsFor('throttled-primary')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('other-connection-standby')).toHaveLength(1);

  // Right after: the 429'd target is cooling (Retry-After: 2 s) and is not contacted at all.
  const second = await ask();
  expect(second.data.choices[0]!.message.content).toBe(mockAnswerText(8));
  expect(second.response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/other-connection-standby');
  expect(second.response.headers.get('x-switchyard-attempts')).toBe('1');
  expect(gateway.mock.attemptsFor('throttled-primary')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('other-connection-standby')).toHaveLength(2);

  // The records say so: the first names the 429 and its Retry-After, the second has one attempt.
  const firstRecord = await fetchRecord(gateway.url, first.response.headers.get('x-request-id')!);
  expect(firstRecord.status).toBe('ok');
  expect(firstRecord.attempts).toMatchObject([
    { n: 1, connection: 'mock-openai', model: 'throttled-primary?status=429&retry_after=2', kind: 'rate_limit', http_status: 429, retry_after_ms: 2_000, committed: false },
    { n: 2, connection: 'mock-anthropic', model: 'other-connection-standby', kind: 'ok', http_status: 200, committed: true },
  ]);
  const secondRecord = await fetchRecord(gateway.url, second.response.headers.get('x-request-id')!);
  expect(secondRecord.status).toBe('ok');
  expect(secondRecord.served).toMatchObject({ connection: 'mock-anthropic', model: 'other-connection-standby' });
  expect(secondRecord.attempts).toHaveLength(1);
  expect(secondRecord.attempts[0]).toMatchObject({ n: 1, connection: 'mock-anthropic', kind: 'ok', committed: true });
});
