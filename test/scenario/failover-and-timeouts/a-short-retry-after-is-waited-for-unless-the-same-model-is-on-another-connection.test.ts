import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

let gateway: TestGateway;

// Neither route writes model_change (nor timeouts, health or hedge): whether the fallback is a
// model change is inferred from the model catalog. Each primary answers its first request with a
// 429 and `retry-after: 1`, well under the default retry_after_wait_max_ms (3 s).
beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  gpt-then-claude:
    targets:
      - { connection: mock-openai, model: "gpt-4.1?status=429&retry_after=1&times=1" }
      - { connection: mock-anthropic, model: claude-sonnet-4-5 }
  haiku-then-haiku-on-bedrock:
    targets:
      - { connection: mock-anthropic, model: "claude-haiku-4-5?status=429&retry_after=1&times=1" }
      - { connection: mock-bedrock, model: us.anthropic.claude-haiku-4-5-20251001-v1:0 }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

async function ask(route: string): Promise<{ response: Response; attempts: { connection: string; kind: string }[] }> {
  const response = await postChat(gateway.url, { model: route, messages: hello });
  await response.text();
  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  return { response, attempts: record.attempts.map(({ connection, kind }) => ({ connection, kind })) };
}

it('a fallback of another catalog model is not taken: the gateway waits out the Retry-After and the model asked for answers', async () => {
  const { response, attempts } = await ask('gpt-then-claude');

  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/gpt-4.1?status=429&retry_after=1&times=1');
  expect(attempts).toEqual([
    { connection: 'mock-openai', kind: 'rate_limit' },
    { connection: 'mock-openai', kind: 'ok' },
  ]);
  expect(gateway.mock.attemptsFor('gpt-4.1').map((attempt) => attempt.outcome)).toEqual(['status 429', 'ok']);
  expect(gateway.mock.attemptsFor('claude-sonnet-4-5')).toHaveLength(0);
});

it('a fallback of the same catalog model on another connection is taken at once', async () => {
  const { response, attempts } = await ask('haiku-then-haiku-on-bedrock');

  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-bedrock/us.anthropic.claude-haiku-4-5-20251001-v1:0');
  expect(attempts).toEqual([
    { connection: 'mock-anthropic', kind: 'rate_limit' },
    { connection: 'mock-bedrock', kind: 'ok' },
  ]);
  expect(gateway.mock.attemptsFor('claude-haiku-4-5').map((attempt) => attempt.outcome)).toEqual(['status 429']);
  expect(gateway.mock.attemptsFor('us.anthropic.claude-haiku-4-5-20251001-v1:0')).toHaveLength(1);
});
