import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

let gateway: TestGateway;
let client: OpenAI;

// The only alternative is a model change, and the 300 ms Retry-After is under
// retry_after_wait_max_ms: waiting for the same model beats answering with another one.
beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  patient:
    retry_after_wait_max_ms: 1000
    targets:
      - { connection: mock-openai, model: "briefly-busy?status=429&retry_after_ms=300&times=1" }
      - { connection: mock-anthropic, model: different-model, model_change: true }
  too-long-to-wait:
    retry_after_wait_max_ms: 1000
    targets:
      - { connection: mock-openai, model: "long-busy?status=429&retry_after_ms=2000&times=1" }
      - { connection: mock-anthropic, model: different-model-2, model_change: true }
`);
  client = openAiClient(gateway.url);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

it('waits ~300 ms and the same target serves; the model-change target is never contacted', async () => {
  const startedAt = Date.now();
  const { data, response } = await client.chat.completions.create({ model: 'patient', messages: hello }).withResponse();
  const elapsedMs = Date.now() - startedAt;

  expect(data.choices[0]!.message.content).toBe(mockAnswerText(8));
  expect(data.model).toBe('briefly-busy');
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/briefly-busy?status=429&retry_after_ms=300&times=1');
  expect(response.headers.get('x-switchyard-attempts')).toBe('2');
  // It waited out the Retry-After (a timer never fires early); the served-by header says it waited for the same target.
  expect(elapsedMs).toBeGreaterThanOrEqual(280);

  const busy = gateway.mock.attemptsFor('briefly-busy');
  expect(busy.map((attempt) => attempt.outcome)).toEqual(['status 429', 'ok']);
  expect(busy[1]!.atMs - busy[0]!.atMs).toBeGreaterThanOrEqual(280);
  expect(gateway.mock.attemptsFor('different-model')).toHaveLength(0);

  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts).toMatchObject([
    { n: 1, kind: 'rate_limit', http_status: 429, retry_after_ms: 300 },
    { n: 2, kind: 'ok', http_status: 200, committed: true },
  ]);
  // The wait was on purpose: it is not counted as gateway overhead.
  expect(record.added_latency_ms).toBeLessThan(200);
});

it('a Retry-After longer than retry_after_wait_max_ms is not waited for: the model change serves at once', async () => {
  const startedAt = Date.now();
  const { data, response } = await client.chat.completions.create({ model: 'too-long-to-wait', messages: hello }).withResponse();
  expect(Date.now() - startedAt).toBeLessThan(1_000);
  expect(data.model).toBe('different-model-2');
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/different-model-2');
  expect(gateway.mock.attemptsFor('long-busy')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('different-model-2')).toHaveLength(1);
});
