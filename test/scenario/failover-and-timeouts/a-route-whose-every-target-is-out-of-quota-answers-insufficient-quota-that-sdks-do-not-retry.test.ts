import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { hello } from '../scenario-helpers.js';

/**
 * A spend cap lasts until someone raises it: answered as a 30-second rate limit, the official SDKs
 * would retry against it. The config sets nothing but connections and targets.
 */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  capped:
    targets:
      - { connection: mock-openai, model: "capped-o?error=insufficient_quota" }
      - { connection: mock-anthropic, model: "capped-a?error=insufficient_quota" }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

interface QuotaBody {
  error: { type: string; code: string; message: string; attempts: { kind: string }[] };
}

it('every target out of quota → 429 insufficient_quota / quota_exhausted with x-should-retry: false and no retry-after, and the same at once while they stay out', async () => {
  const first = await postChat(gateway.url, { model: 'capped', messages: hello });
  expect(first.status).toBe(429);
  expect(first.headers.get('x-should-retry')).toBe('false');
  expect(first.headers.get('retry-after')).toBeNull();
  const body = (await first.json()) as QuotaBody;
  expect(body.error).toMatchObject({ type: 'insufficient_quota', code: 'quota_exhausted' });
  expect(body.error.message).toContain('out of quota');
  expect(body.error.message).not.toContain('rate limit');
  expect(body.error.attempts.map((attempt) => attempt.kind)).toEqual(['quota_exhausted', 'quota_exhausted']);

  // Both are now out (cooling and structural): the next request reaches no provider and hears the same.
  const attemptsBefore = gateway.mock.attempts.length;
  const second = await postChat(gateway.url, { model: 'capped', messages: hello });
  expect(second.status).toBe(429);
  expect(second.headers.get('x-should-retry')).toBe('false');
  expect(second.headers.get('retry-after')).toBeNull();
  expect(((await second.json()) as QuotaBody).error.code).toBe('quota_exhausted');
  expect(gateway.mock.attempts.length).toBe(attemptsBefore);
});

it('the official OpenAI SDK, with its default retries, sends the request once and raises', async () => {
  let requests = 0;
  const counted: typeof fetch = (input, init) => {
    requests++;
    return fetch(input, init);
  };
  const error = await new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused', maxRetries: 2, timeout: 10_000, fetch: counted }).chat.completions
    .create({ model: 'capped', messages: hello })
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(OpenAI.RateLimitError);
  expect((error as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('quota_exhausted');
  expect(requests).toBe(1);
});
