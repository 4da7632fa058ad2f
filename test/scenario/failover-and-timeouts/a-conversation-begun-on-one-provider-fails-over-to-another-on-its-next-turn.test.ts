import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { fetchRecord } from '../scenario-helpers.js';

let gateway: TestGateway;
let client: OpenAI;

// `talk` is the conversation's route while OpenAI is up; `talk-openai-down` the same targets with
// OpenAI failing, as a mock directive spells it.
beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: scenario-admin-token }
${MOCK_CONNECTIONS}
routes:
  talk:
    targets:
      - { connection: mock-openai, model: gpt-main }
      - { connection: mock-anthropic, model: claude-standby }
  talk-openai-down:
    retries: 0
    targets:
      - { connection: mock-openai, model: "gpt-main?status=503" }
      - { connection: mock-anthropic, model: claude-standby }
`);
  client = openAiClient(gateway.url);
});
afterAll(() => gateway.close());

it('turn 1 on mock-openai, turn 2 by previous_response_id fails over to mock-anthropic, which receives the whole first turn', async () => {
  const { data: first, response: firstResponse } = await client.responses.create({ model: 'talk', input: 'Plan a route from A to B.' }).withResponse();
  expect(firstResponse.headers.get('x-switchyard-served-by')).toBe('mock-openai/gpt-main');

  const { data: second, response } = await client.responses
    .create({ model: 'talk-openai-down', input: 'Now avoid tolls.', previous_response_id: first.id })
    .withResponse();
  expect(second.status).toBe('completed');
  expect(second.model).toBe('claude-standby');
  expect(second.previous_response_id).toBe(first.id);
  expect(second.output_text).toBe(mockAnswerText(8));
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/claude-standby');
  expect(response.headers.get('x-switchyard-attempts')).toBe('2');

  // OpenAI was tried with the whole conversation too, and failed.
  const refused = gateway.mock.attemptsFor('gpt-main').at(-1)!.body as { messages: { role: string }[] };
  expect(refused.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
  // Anthropic got the first turn — the question and OpenAI's answer — then the new one, in its own shape.
  const sent = gateway.mock.attemptsFor('claude-standby').at(-1)!.body as { messages: { role: string; content: unknown }[] };
  expect(sent.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
  const texts = sent.messages.map((message) => JSON.stringify(message.content));
  expect(texts[0]).toContain('Plan a route from A to B.');
  expect(texts[1]).toContain(mockAnswerText(8));
  expect(texts[2]).toContain('Now avoid tolls.');

  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts.map((attempt) => [attempt.connection, attempt.kind])).toEqual([
    ['mock-openai', 'server_error'],
    ['mock-anthropic', 'ok'],
  ]);
});

it('the turn the standby served is stored too: the conversation goes on from it back on OpenAI', async () => {
  const first = await client.responses.create({ model: 'talk-openai-down', input: 'Start on the standby.' });
  expect(first.model).toBe('claude-standby');
  const second = await client.responses.create({ model: 'talk', input: 'Go on.', previous_response_id: first.id });
  expect(second.model).toBe('gpt-main');
  const sent = gateway.mock.attemptsFor('gpt-main').at(-1)!.body as { messages: { role: string; content: unknown }[] };
  expect(sent.messages).toEqual([
    { role: 'user', content: 'Start on the standby.' },
    { role: 'assistant', content: mockAnswerText(8) },
    { role: 'user', content: 'Go on.' },
  ]);
});
