import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { hello } from '../scenario-helpers.js';

let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  flaky:
    retries: 1
    backoff: { base_ms: 10, max_ms: 20 }
    targets:
      - { connection: mock-openai, model: "flaky-primary?status=500&times=1" }
      - { connection: mock-anthropic, model: unused-standby }
`);
  client = openAiClient(gateway.url);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

it.each([false, true])('a single 500 is retried once on the same target, which serves (stream: %s)', async (stream) => {
  let text: string;
  let response: Response;
  if (stream) {
    const result = await client.chat.completions.create({ model: 'flaky', stream: true, messages: hello }).withResponse();
    response = result.response;
    text = '';
    for await (const chunk of result.data) text += chunk.choices[0]?.delta.content ?? '';
  } else {
    const result = await client.chat.completions.create({ model: 'flaky', messages: hello }).withResponse();
    response = result.response;
    text = result.data.choices[0]!.message.content ?? '';
  }
  expect(text).toBe(mockAnswerText(8));
  expect(response.headers.get('x-switchyard-attempts')).toBe('2');
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/flaky-primary?status=500&times=1');
  const primary = gateway.mock.attemptsFor('flaky-primary');
  expect(primary.map((attempt) => attempt.outcome)).toEqual(['status 500', 'ok']);
  expect(gateway.mock.attemptsFor('unused-standby')).toHaveLength(0);
});
