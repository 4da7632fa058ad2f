import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { hello } from '../scenario-helpers.js';

let gateway: TestGateway;

// Each route has a healthy fallback on another connection that must never be asked the refused
// question (moderation → stop), and retries: 3 that must not be used either.
beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  refused-openai-error:
    retries: 3
    targets:
      - { connection: mock-openai, model: "policy-o?error=content_policy" }
      - { connection: mock-anthropic, model: fallback-1 }
  refused-anthropic-error:
    retries: 3
    targets:
      - { connection: mock-anthropic, model: "policy-a?error=content_policy" }
      - { connection: mock-openai, model: fallback-2 }
  filtered-openai:
    retries: 3
    targets:
      - { connection: mock-openai, model: "filtered-o?chunks=0&finish=content_filter" }
      - { connection: mock-anthropic, model: fallback-3 }
  filtered-anthropic:
    retries: 3
    targets:
      - { connection: mock-anthropic, model: "filtered-a?chunks=0&finish=content_filter" }
      - { connection: mock-openai, model: fallback-4 }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

interface FinalErrorBody {
  error: { code: string; type: string; attempts: { kind: string }[] };
}

async function expectRefused(route: string, stream: boolean, primary: string, fallback: string) {
  const response = await postChat(gateway.url, { model: route, stream, messages: hello });
  const text = await response.text();
  expect({ status: response.status, body: text.slice(0, 400) }).toMatchObject({ status: 400 });
  const body = JSON.parse(text) as FinalErrorBody;
  expect(body.error.code).toBe('content_policy_violation');
  expect(body.error.attempts.map((attempt) => attempt.kind)).toEqual(['moderation']);
  expect(response.headers.get('x-should-retry')).toBe('false');
  expect(gateway.mock.attemptsFor(primary)).toHaveLength(1);
  expect(gateway.mock.attemptsFor(fallback)).toHaveLength(0);
}

describe('a content-policy refusal stops the request: 400, and the fallback is never contacted', () => {
  it.each([false, true])('OpenAI dialect, 400 content_policy error body (stream: %s)', async (stream) => {
    await expectRefused('refused-openai-error', stream, 'policy-o', 'fallback-1');
  });

  it.each([false, true])('OpenAI dialect, a 200 with finish_reason content_filter and no content (stream: %s)', async (stream) => {
    await expectRefused('filtered-openai', stream, 'filtered-o', 'fallback-3');
  });

  it.each([false, true])('Anthropic dialect, a 200 with stop_reason refusal and no content (stream: %s)', async (stream) => {
    await expectRefused('filtered-anthropic', stream, 'filtered-a', 'fallback-4');
  });

  it.each([false, true])('Anthropic dialect, 400 "Output blocked by content filtering policy" (stream: %s)', async (stream) => {
    await expectRefused('refused-anthropic-error', stream, 'policy-a', 'fallback-2');
  });
});
