import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { anthropicClient, openAiClient } from '../../support/sdk-clients.js';

// A mock connection speaking only the Responses API: callers of the other dialects are translated onto it.
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
connections:
  mock-responses: { provider: mock, dialect: openai-responses }
routes:
  plain: { targets: [{ connection: mock-responses, model: responses-only }] }
  tools: { targets: [{ connection: mock-responses, model: "responses-tools?tool_call=get_weather" }] }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

it('a Chat Completions caller: the request goes up as Responses input items, the answer comes back as a completion', async () => {
  const completion = await openAiClient(gateway.url).chat.completions.create({
    model: 'plain',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ],
    max_tokens: 40,
  });
  expect(completion.choices[0]!.message.content).toBe(mockAnswerText(8));
  expect(completion.choices[0]!.finish_reason).toBe('stop');
  expect(completion.usage?.completion_tokens).toBe(8);
  const attempt = gateway.mock.attemptsFor('responses-only')[0]!;
  expect(attempt).toMatchObject({ dialect: 'openai-responses', path: '/v1/responses' });
  expect(attempt.body).toMatchObject({
    model: 'responses-only',
    store: false,
    max_output_tokens: 40,
    input: [
      { type: 'message', role: 'system', content: 'Be brief.' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
    ],
  });
});

it('a streamed Chat Completions caller with a tool gets the call in Chat chunks', async () => {
  const stream = await openAiClient(gateway.url).chat.completions.create({
    model: 'tools',
    messages: [{ role: 'user', content: 'weather?' }],
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
    stream: true,
  });
  let args = '';
  let finish: string | null = null;
  let callId: string | undefined;
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    callId ??= choice?.delta.tool_calls?.[0]?.id;
    args += choice?.delta.tool_calls?.[0]?.function?.arguments ?? '';
    finish = choice?.finish_reason ?? finish;
  }
  expect(JSON.parse(args)).toEqual({ city: 'w0' });
  expect(callId).toBe('call_mock_1');
  expect(finish).toBe('tool_calls');
});

it('an Anthropic Messages caller streams from it too', async () => {
  const stream = anthropicClient(gateway.url).messages.stream({ model: 'plain', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
  const message = await stream.finalMessage();
  expect(message.content).toMatchObject([{ type: 'text', text: mockAnswerText(8) }]);
  expect(message.stop_reason).toBe('end_turn');
  expect(gateway.mock.attemptsFor('responses-only')[0]!.body).toMatchObject({ stream: true });
});
