import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello, sseContent } from '../scenario-helpers.js';

/**
 * A 200 that finishes with nothing in it (no text, no tool call, no refusal) is not an answer:
 * handed over, it would pass a non-answer off as success. The config sets nothing but
 * connections and targets.
 */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  openai-primary:
    targets:
      - { connection: mock-openai, model: "silent-o?chunks=0" }
      - { connection: mock-anthropic, model: standby-a }
  anthropic-primary:
    targets:
      - { connection: mock-anthropic, model: "silent-a?chunks=0" }
      - { connection: mock-openai, model: standby-o }
  only-empty:
    targets:
      - { connection: mock-gemini, model: "silent-g?chunks=0" }
  cut-by-length:
    targets:
      - { connection: mock-openai, model: "spent-o?chunks=0&finish=length" }
      - { connection: mock-anthropic, model: never-asked }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

it.each([
  { route: 'openai-primary', stream: false, primary: 'silent-o?chunks=0', standby: 'standby-a' },
  { route: 'openai-primary', stream: true, primary: 'silent-o?chunks=0', standby: 'standby-a' },
  { route: 'anthropic-primary', stream: false, primary: 'silent-a?chunks=0', standby: 'standby-o' },
  { route: 'anthropic-primary', stream: true, primary: 'silent-a?chunks=0', standby: 'standby-o' },
])('$route (stream: $stream): the empty 200 fails over to the standby, which answers', async ({ route, stream, primary, standby }) => {
  const response = await postChat(gateway.url, { model: route, stream, messages: hello });
  const body = await response.text();
  expect(response.status).toBe(200);
  const text = stream ? sseContent(body) : (JSON.parse(body) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
  expect(text).not.toBe('');
  expect(gateway.mock.attemptsFor(primary.split('?')[0]!)).toHaveLength(1);
  expect(gateway.mock.attemptsFor(standby)).toHaveLength(1);
  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts.map((attempt) => [attempt.model, attempt.kind, attempt.http_status])).toEqual([
    [primary, 'empty_answer', 200],
    [standby, 'ok', 200],
  ]);
});

it('when every target answers empty, the caller gets a 502 naming empty_answer, not an empty success', async () => {
  const response = await postChat(gateway.url, { model: 'only-empty', messages: hello });
  const body = (await response.json()) as { error: { code: string; message: string; attempts: { kind: string }[] } };
  expect(response.status).toBe(502);
  expect(body.error.code).toBe('upstream_error');
  expect(body.error.message).toContain('empty_answer');
  expect(body.error.attempts.map((attempt) => attempt.kind)).toEqual(['empty_answer']);
});

it('a stream cut by its length limit before any content is not an empty answer: it is handed over as it is', async () => {
  const response = await postChat(gateway.url, { model: 'cut-by-length', stream: true, messages: hello });
  await response.text();
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/spent-o?chunks=0&finish=length');
  expect(gateway.mock.attemptsFor('never-asked')).toHaveLength(0);
});
