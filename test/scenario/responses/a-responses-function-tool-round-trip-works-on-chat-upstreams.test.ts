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
  call-anthropic: { targets: [{ connection: mock-anthropic, model: "claude-mock?tool_call=get_weather" }] }
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
const question = { role: 'user' as const, content: 'What is the weather in Paris?' };

describe.each([
  ['mock-openai', 'call-openai', 'answer-openai', 'gpt-answer'],
  ['mock-anthropic', 'call-anthropic', 'answer-anthropic', 'claude-answer'],
])('a function tool round trip through %s', (_connection, callRoute, answerRoute, answerModel) => {
  it('gets a function_call item, sends its output back, and the upstream sees the call and its result', async () => {
    const first = await client.responses.create({ model: callRoute, input: [question], tools });
    expect(first.status).toBe('completed');
    expect(first.output).toHaveLength(1);
    const call = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ type: 'function_call', status: 'completed', name: 'get_weather', id: expect.stringMatching(/^fc_/) });
    expect(JSON.parse(call.arguments)).toEqual({ city: 'w0', unit: 'w1' });
    expect(call.call_id).toMatch(/^(call|toolu)_mock_/);

    const second = await client.responses.create({
      model: answerRoute,
      input: [question, call, { type: 'function_call_output', call_id: call.call_id, output: 'Sunny, 21 C' }],
      tools,
    });
    expect(second.output_text).toBe(mockAnswerText(8));

    const sent = gateway.mock.attemptsFor(answerModel).at(-1)!.body as { messages: Record<string, unknown>[] };
    const serialized = JSON.stringify(sent.messages);
    // The call id and the tool's answer reach the upstream in its own vocabulary.
    expect(serialized).toContain(call.call_id);
    expect(serialized).toContain('Sunny, 21 C');
    expect(sent.messages.map((message) => message.role)).toEqual(
      answerModel === 'gpt-answer' ? ['user', 'assistant', 'tool'] : ['user', 'assistant', 'user'],
    );
  });

  it('streams the call as function_call_arguments deltas and a done item', async () => {
    const stream = client.responses.stream({ model: callRoute, input: [question], tools });
    const types: string[] = [];
    let argumentsText = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.function_call_arguments.delta') argumentsText += event.delta;
    }
    const final = await stream.finalResponse();
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.function_call_arguments.done');
    expect(types.filter((type) => type === 'response.function_call_arguments.delta').length).toBeGreaterThan(1);
    expect(types.at(-1)).toBe('response.completed');
    expect(JSON.parse(argumentsText)).toEqual({ city: 'w0', unit: 'w1' });
    expect(final.output).toMatchObject([{ type: 'function_call', name: 'get_weather', status: 'completed', arguments: argumentsText }]);
  });
});
