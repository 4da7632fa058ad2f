import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { hello } from '../scenario-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
# Both Retry-Afters are above the default retry_after_wait_max_ms (3 s), so the gateway never
# holds the caller to wait for one (that exception has its own test).
routes:
  all-throttled:
    targets:
      - { connection: mock-openai, model: "busy-openai?status=429&retry_after=10" }
      - { connection: mock-anthropic, model: "busy-anthropic?status=429&retry_after=4" }
`);
});
afterAll(() => gateway.close());

interface FinalErrorBody {
  error: { code: string; type: string; request_id: string; attempts: { target: string; kind: string; status: number | null }[] };
}

it('every target 429 (answered at once, no wait) → the caller gets 429 with retry-after; right after, 429 again without contacting anyone', async () => {
  const startedAt = Date.now();
  const first = await postChat(gateway.url, { model: 'all-throttled', messages: hello });
  expect(Date.now() - startedAt).toBeLessThan(1_000);
  const firstBody = (await first.json()) as FinalErrorBody;
  expect(first.status).toBe(429);
  expect(firstBody.error.code).toBe('rate_limit_exceeded');
  expect(firstBody.error.attempts.map((attempt) => [attempt.target, attempt.kind, attempt.status])).toEqual([
    ['mock-openai/busy-openai?status=429&retry_after=10', 'rate_limit', 429],
    ['mock-anthropic/busy-anthropic?status=429&retry_after=4', 'rate_limit', 429],
  ]);
  // Waiting helps, and the headers say how long: the earliest a target leaves cooling (4 s).
  expect(first.headers.get('x-should-retry')).not.toBe('false');
  expect(first.headers.get('retry-after')).toBe('4');
  const firstRetryAfterMs = Number(first.headers.get('retry-after-ms'));
  expect(firstRetryAfterMs).toBeGreaterThan(3_500);
  expect(firstRetryAfterMs).toBeLessThanOrEqual(4_000);
  expect(gateway.mock.attemptsFor('busy-openai')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('busy-anthropic')).toHaveLength(1);

  // Every target is cooling: the gateway answers at once, and no provider hears of it.
  const second = await postChat(gateway.url, { model: 'all-throttled', messages: hello });
  const secondBody = (await second.json()) as FinalErrorBody;
  expect(second.status).toBe(429);
  expect(secondBody.error.code).toBe('rate_limit_exceeded');
  expect(secondBody.error.attempts).toEqual([]);
  expect(second.headers.get('x-should-retry')).not.toBe('false');
  expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(Number(second.headers.get('retry-after'))).toBeLessThanOrEqual(4);
  const secondRetryAfterMs = Number(second.headers.get('retry-after-ms'));
  expect(secondRetryAfterMs).toBeGreaterThan(0);
  expect(secondRetryAfterMs).toBeLessThanOrEqual(firstRetryAfterMs);
  expect(gateway.mock.attemptsFor('busy-openai')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('busy-anthropic')).toHaveLength(1);
});

it('the official SDK (maxRetries: 0) surfaces it as a RateLimitError', async () => {
  const client = openAiClient(gateway.url);
  const error = await client.chat.completions.create({ model: 'all-throttled', messages: hello }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OpenAI.RateLimitError);
  expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after-ms')).toMatch(/^\d+$/);
  expect(gateway.mock.attemptsFor('busy-openai')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('busy-anthropic')).toHaveLength(1);
});
