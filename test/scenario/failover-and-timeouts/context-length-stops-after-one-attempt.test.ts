import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { hello } from '../scenario-helpers.js';

let gateway: TestGateway;

// retries: 3 on purpose: a context length is never worth a same-target retry.
beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  too-long-openai:
    retries: 3
    targets: [{ connection: mock-openai, model: "short-window-o?error=context_length" }]
  too-long-anthropic:
    retries: 3
    targets: [{ connection: mock-anthropic, model: "short-window-a?error=context_length" }]
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

it.each([
  ['too-long-openai', 'short-window-o'],
  ['too-long-anthropic', 'short-window-a'],
])('%s: the only target says the input is too long → 400 context_length_exceeded after one attempt', async (route, upstream) => {
  const response = await postChat(gateway.url, { model: route, messages: hello });
  const body = (await response.json()) as { error: { code: string; type: string; attempts: { kind: string; status: number }[] } };
  expect(response.status).toBe(400);
  expect(body.error.code).toBe('context_length_exceeded');
  expect(body.error.type).toBe('invalid_request_error');
  expect(body.error.attempts.map((attempt) => [attempt.kind, attempt.status])).toEqual([['context_length', 400]]);
  expect(response.headers.get('x-should-retry')).toBe('false');
  expect(gateway.mock.attemptsFor(upstream)).toHaveLength(1);
});

it('the official SDK raises a BadRequestError with the code', async () => {
  const client = openAiClient(gateway.url);
  const error = await client.chat.completions.create({ model: 'too-long-openai', messages: hello }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OpenAI.BadRequestError);
  expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('context_length_exceeded');
  expect(gateway.mock.attemptsFor('short-window-o')).toHaveLength(1);
});
