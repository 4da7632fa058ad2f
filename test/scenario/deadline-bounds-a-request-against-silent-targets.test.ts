import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { hello, settledOutcome } from './scenario-helpers.js';

let gateway: TestGateway;

// The route's first_token_ms is a minute, so only the caller's 1.2 s deadline can bite.
beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  all-silent:
    retries: 3
    timeouts: { first_token_ms: 60000 }
    targets:
      - { connection: mock-openai, model: "silent-1?first_token_ms=30000" }
      - { connection: mock-anthropic, model: "silent-2?silence" }
      - { connection: mock-openai, model: "silent-3?first_token_ms=30000" }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

it('x-request-timeout-ms: 1200 → an error within ~1.2 s, and no attempt starts after the deadline', async () => {
  const deadlineMs = 1_200;
  const startedAt = Date.now();
  const response = await postChat(gateway.url, { model: 'all-silent', stream: true, messages: hello }, { 'x-request-timeout-ms': String(deadlineMs) });
  const text = await response.text();
  const elapsedMs = Date.now() - startedAt;

  expect(elapsedMs).toBeGreaterThan(1_000);
  expect(elapsedMs).toBeLessThan(1_800);
  expect(response.status).toBe(504);
  const body = JSON.parse(text) as { error: { code: string; attempts: { kind: string }[] } };
  expect(body.error.code).toBe('upstream_timeout');
  expect(body.error.attempts.length).toBeGreaterThanOrEqual(1);
  expect(body.error.attempts.every((attempt) => attempt.kind === 'timeout')).toBe(true);

  const attempts = gateway.mock.attempts;
  expect(attempts.length).toBeGreaterThanOrEqual(1);
  expect(attempts.length).toBe(body.error.attempts.length);
  for (const attempt of attempts) expect(attempt.atMs).toBeLessThan(startedAt + deadlineMs);
  // The silent primary (headers and role chunk, then nothing) was let go at the deadline.
  expect(await settledOutcome(gateway.mock.attemptsFor('silent-1')[0]!)).toBe('client_closed');
});
