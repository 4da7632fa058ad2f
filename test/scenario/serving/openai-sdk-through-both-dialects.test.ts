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
  via-openai: { targets: [{ connection: mock-openai, model: gpt-mock }] }
  via-anthropic: { targets: [{ connection: mock-anthropic, model: claude-mock }] }
  tools-openai: { targets: [{ connection: mock-openai, model: "gpt-mock?tool_call=get_weather" }] }
  tools-anthropic: { targets: [{ connection: mock-anthropic, model: "claude-mock?tool_call=get_weather" }] }
`);
  client = openAiClient(gateway.url);
});
afterAll(() => gateway.close());

const expectedText = mockAnswerText(8);

describe.each([
  ['via-openai', 'gpt-mock', 'mock-openai'],
  ['via-anthropic', 'claude-mock', 'mock-anthropic'],
])('the official openai SDK through route %s', (route, answeringModel, connection) => {
  it('gets a non-streamed answer with usage and the served-by headers', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: route, messages: [{ role: 'user', content: 'Hello there' }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe(expectedText);
    expect(data.choices[0]!.finish_reason).toBe('stop');
    expect(data.model).toBe(answeringModel);
    expect(data.usage!.completion_tokens).toBe(8);
    expect(data.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(response.headers.get('x-switchyard-served-by')).toBe(`${connection}/${answeringModel}`);
    expect(response.headers.get('x-switchyard-attempts')).toBe('1');
  });

  it('gets a streamed answer, with the usage chunk only when asked for', async () => {
    const chunks = [];
    for await (const chunk of await client.chat.completions.create({
      model: route,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Hello there' }],
    })) {
      chunks.push(chunk);
    }
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(expectedText);
    expect(chunks.every((chunk) => chunk.model === answeringModel)).toBe(true);
    expect(chunks.find((chunk) => chunk.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(chunks.at(-1)!.usage!.completion_tokens).toBe(8);

    const withoutUsage = [];
    for await (const chunk of await client.chat.completions.create({ model: route, stream: true, messages: [{ role: 'user', content: 'Hi' }] })) {
      withoutUsage.push(chunk);
    }
    expect(withoutUsage.some((chunk) => chunk.usage)).toBe(false);
    // The gateway asked the upstream for usage all the same.
    const attempts = gateway.mock.attemptsFor(answeringModel);
    expect(attempts.at(-1)!.stream).toBe(true);
  });
});

describe.each([
  ['tools-openai', 'mock-openai'],
  ['tools-anthropic', 'mock-anthropic'],
])('tool calls through %s', (route) => {
  const tools = [
    {
      type: 'function' as const,
      function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    },
  ];

  it('come back whole, non-streamed', async () => {
    const completion = await client.chat.completions.create({ model: route, tools, messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.tool_calls).toHaveLength(1);
    const call = choice.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('get_weather');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'w0' });
  });

  it('stream as a tool-call start and argument fragments', async () => {
    const stream = client.chat.completions.stream({ model: route, tools, messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    const final = await stream.finalChatCompletion();
    const call = final.choices[0]!.message.tool_calls![0]!;
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.type === 'function' && call.function.name).toBe('get_weather');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'w0' });
    expect(call.id).toMatch(/^(call|toolu)_mock_/);
  });

  it('send the tool result back in the next turn, which the model answers with text', async () => {
    const completion = await client.chat.completions.create({
      model: route,
      tools,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '18 degrees and sunny' },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe(mockAnswerText(8));
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    const sent = gateway.mock.attempts.at(-1)!.body as { messages: unknown[] };
    expect(JSON.stringify(sent.messages)).toContain('18 degrees and sunny');
  });
});
