import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

/**
 * A stream that sent content, then nothing for at least half its idle timeout, then failed (hung
 * up, or sent an error event) hangs rather than answers: before the commit point (here
 * `commit: complete`, so nothing has reached the caller) it is a `timeout`, never retried on the
 * same target, and the next target is tried at once. The primary's pieces come 600 ms apart; the
 * idle timeout is 1 s (the rule is relative to it: the default 30 s would make the test 15 s long).
 */
let gateway: TestGateway;

const route = (name: string, primary: string, idleMs = 1_000) => `
  ${name}:
    commit: complete
    timeouts: { idle_ms: ${idleMs} }
    targets:
      - { connection: mock-openai, model: "${primary}" }
      - { connection: mock-anthropic, model: standby }`;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:${route('hang-up', 'silent-then-cut?chunks=8&chunk_ms=600&cut_after=2')}${route('error-event', 'silent-then-error?chunks=8&chunk_ms=600&inband_error=server_error&error_after=2')}${route('quick', 'quick-cut?chunks=8&chunk_ms=100&cut_after=2', 4_000)}
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

async function attemptsOf(model: string) {
  const response = await postChat(gateway.url, { model, stream: true, messages: hello });
  const body = await response.text();
  expect(response.status).toBe(200);
  expect(body).toContain('data: [DONE]');
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/standby');
  return (await fetchRecord(gateway.url, response.headers.get('x-request-id')!)).attempts;
}

it.each([
  ['hang-up', 'silent-then-cut'],
  ['error-event', 'silent-then-error'],
])('content, 600 ms of silence, then a failure (%s): a timeout (silent_then_failed) that fails over at once, not a same-target retry', async (name, primary) => {
  const attempts = await attemptsOf(name);
  expect(attempts).toMatchObject([
    { connection: 'mock-openai', kind: 'timeout', error_type: 'silent_then_failed' },
    { connection: 'mock-anthropic', kind: 'ok' },
  ]);
  expect(gateway.mock.attempts.filter((attempt) => attempt.model.startsWith(primary))).toHaveLength(1);
});

// Under an idle timeout of 4 s: far from half of it, even on a loaded machine.
it('a hang-up 100 ms after the last piece is still a connection failure, retried on the same target as before', async () => {
  const attempts = await attemptsOf('quick');
  expect(attempts.map((attempt) => [attempt.connection, attempt.kind])).toEqual([
    ['mock-openai', 'connection'],
    ['mock-openai', 'connection'],
    ['mock-anthropic', 'ok'],
  ]);
});
