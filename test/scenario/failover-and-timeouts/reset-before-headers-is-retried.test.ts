import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello, sseContent } from '../scenario-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  resetting:
    retries: 1
    backoff: { base_ms: 10, max_ms: 20 }
    targets:
      - { connection: mock-openai, model: "reset-primary?reset&times=1" }
      - { connection: mock-anthropic, model: reset-standby }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

// A TCP reset before any header is a `connection` failure, whose default rule is retry: the
// gateway recovers by a same-target retry (not a failover), and the caller sees one clean answer.
it.each([false, true])('a reset before headers is recovered by one same-target retry (stream: %s)', async (stream) => {
  const response = await postChat(gateway.url, { model: 'resetting', stream, messages: hello });
  const body = await response.text();
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/reset-primary?reset&times=1');
  expect(response.headers.get('x-switchyard-attempts')).toBe('2');
  expect(stream ? sseContent(body) : (JSON.parse(body) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe(
    mockAnswerText(8),
  );
  expect(gateway.mock.attemptsFor('reset-primary').map((attempt) => attempt.outcome)).toEqual(['reset', 'ok']);
  expect(gateway.mock.attemptsFor('reset-standby')).toHaveLength(0);

  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts).toMatchObject([
    { n: 1, connection: 'mock-openai', kind: 'connection', http_status: null, committed: false },
    { n: 2, connection: 'mock-openai', kind: 'ok', http_status: 200, committed: true },
  ]);
});
