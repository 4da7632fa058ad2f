import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  fixed:
    retries: 0
    timeouts: { first_token_ms: 700 }
    targets:
      - { connection: mock-openai, model: "gpt-mock?status=503" }
      - { connection: mock-anthropic, model: claude-mock }
  defaults:
    targets: [{ connection: mock-openai, model: gpt-mock }]
`);
});
afterAll(async () => {
  await gateway.close();
});

it.each([false, true])('every attempt of a route with a numeric first_token_ms records that number (stream: %s)', async (stream) => {
  const response = await postChat(gateway.url, { model: 'fixed', stream, messages: hello });
  await response.text();
  expect(response.status).toBe(200);
  expect(gateway.mock.attemptsFor('gpt-mock')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('claude-mock')).toHaveLength(1);

  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts.map((attempt) => [attempt.connection, attempt.kind, attempt.first_token_timeout_ms])).toEqual([
    ['mock-openai', 'server_error', 700],
    ['mock-anthropic', 'ok', 700],
  ]);
  gateway.mock.reset();
});

it('a route without timeouts records the default first-token timeout, 30 000 ms', async () => {
  const response = await postChat(gateway.url, { model: 'defaults', stream: true, messages: hello });
  await response.text();
  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts).toMatchObject([{ kind: 'ok', first_token_timeout_ms: 30_000 }]);
});
