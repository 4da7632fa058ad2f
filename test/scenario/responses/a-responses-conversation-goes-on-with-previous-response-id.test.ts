import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';

let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  talk: { targets: [{ connection: mock-openai, model: gpt-talk }] }
`);
  client = openAiClient(gateway.url);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

type SentMessage = { role: string; content: unknown };

it('the second turn names the first by previous_response_id; the upstream sees the whole conversation, the first turn’s instructions left behind', async () => {
  const first = await client.responses.create({ model: 'talk', instructions: 'Answer briefly.', input: 'What is a switchyard?' });
  expect(first.id).toMatch(/^resp_/);
  expect(first).toMatchObject({ store: true });

  const second = await client.responses.create({ model: 'talk', input: 'And a marshalling yard?', previous_response_id: first.id });
  expect(second.status).toBe('completed');
  expect(second.previous_response_id).toBe(first.id);
  expect(second.id).not.toBe(first.id);

  const sent = gateway.mock.attemptsFor('gpt-talk').map((attempt) => (attempt.body as { messages: SentMessage[] }).messages);
  expect(sent).toHaveLength(2);
  expect(sent[1]).toEqual([
    { role: 'user', content: 'What is a switchyard?' },
    { role: 'assistant', content: mockAnswerText(8) },
    { role: 'user', content: 'And a marshalling yard?' },
  ]);
});

it('a streamed turn is stored before its last event: a next turn sent the instant it ends finds it', async () => {
  const stream = client.responses.stream({ model: 'talk', input: 'Stream one.' });
  let completedId: string | undefined;
  for await (const event of stream) if (event.type === 'response.completed') completedId = event.response.id;
  expect(completedId).toMatch(/^resp_/);

  const next = await client.responses.create({ model: 'talk', input: 'Then?', previous_response_id: completedId! });
  expect(next.output_text).toBe(mockAnswerText(8));
  const sent = gateway.mock.attemptsFor('gpt-talk').at(-1)!.body as { messages: SentMessage[] };
  expect(sent.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
  expect(sent.messages[1]!.content).toBe(mockAnswerText(8));
});

it('three turns chain: the third carries both earlier turns, in order', async () => {
  const one = await client.responses.create({ model: 'talk', input: 'one' });
  const two = await client.responses.create({ model: 'talk', input: 'two', previous_response_id: one.id });
  await client.responses.create({ model: 'talk', input: 'three', previous_response_id: two.id });
  const sent = gateway.mock.attemptsFor('gpt-talk').at(-1)!.body as { messages: SentMessage[] };
  expect(sent.messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(['one', 'two', 'three']);
  expect(sent.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
});
