import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { hello } from '../scenario-helpers.js';

/**
 * When one target is out of quota and the other failed with a passing fault, the passing fault
 * decides the answer (asking again later may well work) and the message says what each did —
 * never "rate limited or out of quota" for a 503. Config: connections and targets only.
 */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  mixed:
    targets:
      - { connection: mock-openai, model: "capped?error=insufficient_quota" }
      - { connection: mock-anthropic, model: "down?status=503" }
  throttled-beside-capped:
    targets:
      - { connection: mock-openai, model: "capped-2?error=insufficient_quota" }
      - { connection: mock-anthropic, model: "busy?status=429&retry_after=3" }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

it('quota and a 503 → 502 upstream_error with retry-after, the message naming quota_exhausted and server_error', async () => {
  const response = await postChat(gateway.url, { model: 'mixed', messages: hello });
  expect(response.status).toBe(502);
  expect(response.headers.get('retry-after')).toBe('2');
  expect(response.headers.get('x-should-retry')).toBeNull();
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe('upstream_error');
  expect(body.error.message).toContain('quota_exhausted');
  expect(body.error.message).toContain('server_error');
  expect(body.error.message).not.toContain('rate limit');
});

it('quota and a 429 → 429 rate_limit_exceeded whose retry-after is the throttled target\'s', async () => {
  const response = await postChat(gateway.url, { model: 'throttled-beside-capped', messages: hello });
  expect(response.status).toBe(429);
  expect(response.headers.get('retry-after')).toBe('3');
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe('rate_limit_exceeded');
  expect(body.error.message).toContain('rate_limit');
  expect(body.error.message).toContain('quota_exhausted');
});
