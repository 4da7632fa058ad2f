import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  rec-429:
    targets:
      - { connection: mock-openai, model: "rec-throttled?status=429&retry_after=2" }
      # The same model elsewhere: the 429 fails over at once instead of waiting out its Retry-After.
      - { connection: mock-anthropic, model: rec-standby, model_change: false }
  rec-500:
    retries: 1
    backoff: { base_ms: 10, max_ms: 20 }
    targets:
      - { connection: mock-openai, model: "rec-flaky?status=500&times=1" }
      - { connection: mock-anthropic, model: rec-unused }
  rec-cut:
    targets:
      - { connection: mock-openai, model: "rec-cut?cut_after=3" }
      - { connection: mock-anthropic, model: rec-never }
  rec-down:
    retries: 0
    targets:
      - { connection: mock-openai, model: "rec-down-1?status=503" }
      - { connection: mock-anthropic, model: "rec-down-2?status=529" }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const requestIdOf = (response: Response): string => {
  const id = response.headers.get('x-request-id');
  expect(id).toMatch(/^req_/);
  return id!;
};

it('the admin API refuses requests without the admin token', async () => {
  const response = await postChat(gateway.url, { model: 'mock-openai/rec-plain', messages: hello });
  await response.text();
  const id = requestIdOf(response);
  expect((await fetchRecord(gateway.url, id)).status).toBe('ok');
  const anonymous = await fetch(`${gateway.url}/admin/requests/${id}`);
  expect(anonymous.status).toBe(401);
  const wrong = await fetch(`${gateway.url}/admin/requests/${id}`, { headers: { authorization: 'Bearer not-the-token' } });
  expect(wrong.status).toBe(401);
});

it('a 429 failover: both attempts, the 429 with its Retry-After, the served one committed', async () => {
  const response = await postChat(gateway.url, { model: 'rec-429', messages: [{ role: 'user', content: 'a 429 failover' }] });
  expect(response.status).toBe(200);
  await response.text();
  const record = await fetchRecord(gateway.url, requestIdOf(response));
  expect(record).toMatchObject({
    id: requestIdOf(response),
    status: 'ok',
    http_status: 200,
    route: 'rec-429',
    model_requested: 'rec-429',
    stream: false,
    served: { connection: 'mock-anthropic', model: 'rec-standby' },
  });
  expect(record.attempts).toMatchObject([
    { n: 1, connection: 'mock-openai', kind: 'rate_limit', http_status: 429, committed: false, retry_after_ms: 2_000 },
    { n: 2, connection: 'mock-anthropic', model: 'rec-standby', kind: 'ok', http_status: 200, committed: true },
  ]);
  // This request was seen by the mock exactly as the record says (the cooling target was fresh).
  expect(gateway.mock.attempts.map((attempt) => attempt.name)).toEqual(['rec-throttled', 'rec-standby']);
});

it('a 500 retried on the same target: two attempts on one deployment', async () => {
  const response = await postChat(gateway.url, { model: 'rec-500', messages: hello });
  expect(response.status).toBe(200);
  await response.text();
  const record = await fetchRecord(gateway.url, requestIdOf(response));
  expect(record).toMatchObject({ status: 'ok', http_status: 200, served: { connection: 'mock-openai', model: 'rec-flaky?status=500&times=1' } });
  expect(record.attempts).toMatchObject([
    { n: 1, connection: 'mock-openai', model: 'rec-flaky?status=500&times=1', kind: 'server_error', http_status: 500, committed: false },
    { n: 2, connection: 'mock-openai', model: 'rec-flaky?status=500&times=1', kind: 'ok', http_status: 200, committed: true },
  ]);
  expect(record.attempts[1]!.started_ms).toBeGreaterThanOrEqual(record.attempts[0]!.started_ms);
  expect(gateway.mock.attemptsFor('rec-flaky')).toHaveLength(2);
  expect(gateway.mock.attemptsFor('rec-unused')).toHaveLength(0);
});

it('an interrupted stream: one committed attempt, marked stream_interrupted, request status interrupted', async () => {
  const client = openAiClient(gateway.url);
  const { data: stream, response } = await client.chat.completions.create({ model: 'rec-cut', stream: true, messages: hello }).withResponse();
  let text = '';
  await expect(
    (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })(),
  ).rejects.toBeInstanceOf(OpenAI.APIError);
  expect(text).toBe(mockAnswerText(3));
  const record = await fetchRecord(gateway.url, requestIdOf(response));
  expect(record).toMatchObject({
    status: 'interrupted',
    http_status: 200,
    stream: true,
    error_code: 'stream_interrupted',
    served: { connection: 'mock-openai', model: 'rec-cut?cut_after=3' },
  });
  expect(record.attempts).toMatchObject([{ n: 1, connection: 'mock-openai', kind: 'stream_interrupted', http_status: 200, committed: true }]);
  expect(record.first_token_ms).not.toBeNull();
  expect(gateway.mock.attemptsFor('rec-cut')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('rec-never')).toHaveLength(0);
});

it('all targets down → 502, and the record lists every failed attempt', async () => {
  const response = await postChat(gateway.url, { model: 'rec-down', messages: hello });
  expect(response.status).toBe(502);
  const body = (await response.json()) as { error: { request_id: string } };
  const id = requestIdOf(response);
  expect(body.error.request_id).toBe(id);
  const record = await fetchRecord(gateway.url, id);
  expect(record).toMatchObject({ status: 'failed', http_status: 502, error_code: 'upstream_error', served: null, usage: null });
  expect(record.attempts).toMatchObject([
    { n: 1, connection: 'mock-openai', model: 'rec-down-1?status=503', kind: 'server_error', http_status: 503, committed: false },
    { n: 2, connection: 'mock-anthropic', model: 'rec-down-2?status=529', kind: 'server_error', http_status: 529, committed: false },
  ]);
  expect(record.attempts.every((attempt) => typeof attempt.latency_ms === 'number' && attempt.message !== null)).toBe(true);
  expect(gateway.mock.attemptsFor('rec-down-1')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('rec-down-2')).toHaveLength(1);
});
