import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';

let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  call-openai: { targets: [{ connection: mock-openai, model: "gpt-mock?tool_call=get_weather" }] }
  answer-openai: { targets: [{ connection: mock-openai, model: gpt-answer }] }
  answer-anthropic: { targets: [{ connection: mock-anthropic, model: claude-answer }] }
`);
  client = openAiClient(gateway.url);
});
afterAll(() => gateway.close());

const tools: OpenAI.Responses.FunctionTool[] = [
  {
    type: 'function',
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city', 'unit'], additionalProperties: false },
    strict: true,
  },
];

describe.each([
  ['answer-openai', 'gpt-answer', ['user', 'assistant', 'tool']],
  ['answer-anthropic', 'claude-answer', ['user', 'assistant', 'user']],
])('turn 2 on %s', (answerRoute, answerModel, roles) => {
  it('sends only the function_call_output with previous_response_id; the upstream sees the question, the call and its result', async () => {
    const first = await client.responses.create({ model: 'call-openai', input: 'What is the weather in Paris?', tools });
    const call = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call.type).toBe('function_call');

    const second = await client.responses.create({
      model: answerRoute,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'Sunny, 21 C' }],
      tools,
    });
    expect(second.output_text).toBe(mockAnswerText(8));

    const sent = gateway.mock.attemptsFor(answerModel).at(-1)!.body as { messages: Record<string, unknown>[] };
    expect(sent.messages.map((message) => message.role)).toEqual(roles);
    const serialized = JSON.stringify(sent.messages);
    expect(serialized).toContain('What is the weather in Paris?');
    expect(serialized).toContain(call.call_id);
    expect(serialized).toContain('get_weather');
    expect(serialized).toContain('Sunny, 21 C');
  });
});
