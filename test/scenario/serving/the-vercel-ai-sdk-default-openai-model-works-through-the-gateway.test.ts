import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockAnswerText, startMockProvider, type MockProvider } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

// The AI SDK's default OpenAI model (`openai(id)`) calls /v1/responses; nothing is configured for the gateway beyond baseURL.
let upstream: MockProvider;
let gateway: TestGateway;
let openai: ReturnType<typeof createOpenAI>;

beforeAll(async () => {
  upstream = await startMockProvider();
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
  openai-direct: { provider: openai, api_key: sk-test, base_url: "${upstream.url}/v1" }
routes:
  gpt:
    targets:
      - { connection: openai-direct, model: gpt-upstream }
  claude:
    targets:
      - { connection: mock-anthropic, model: claude-upstream }
  gpt-tools:
    targets:
      - { connection: openai-direct, model: "gpt-tools?tool_call=get_weather" }
`);
  openai = createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused' });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.reset();
  gateway.mock.reset();
});

describe.each([
  ['gpt', 'an OpenAI target on its Responses API', () => upstream.attemptsFor('gpt-upstream'), '/v1/responses'],
  ['claude', 'an Anthropic target', () => gateway.mock.attemptsFor('claude-upstream'), '/v1/messages'],
])('route %s (%s)', (route, _what, attempts, upstreamPath) => {
  it('generateText gets the answer', async () => {
    const { text, finishReason, usage } = await generateText({ model: openai(route), prompt: 'hi', maxRetries: 0 });
    expect(text).toBe(mockAnswerText(8));
    expect(finishReason).toBe('stop');
    expect(usage.outputTokens).toBe(8);
    expect(attempts().map((attempt) => attempt.path)).toEqual([upstreamPath]);
  });

  it('streamText streams it', async () => {
    const result = streamText({ model: openai(route), prompt: 'hi', maxRetries: 0 });
    const parts: string[] = [];
    for await (const part of result.textStream) parts.push(part);
    expect(parts.join('')).toBe(mockAnswerText(8));
    expect(parts.length).toBeGreaterThan(1);
    expect(await result.finishReason).toBe('stop');
    expect(attempts().map((attempt) => attempt.path)).toEqual([upstreamPath]);
  });
});

it('a tool: the call is executed and its result goes back up as a function_call_output', async () => {
  const calls: unknown[] = [];
  const result = await generateText({
    model: openai('gpt-tools'),
    prompt: 'weather in Paris?',
    maxRetries: 0,
    stopWhen: stepCountIs(2),
    tools: {
      get_weather: tool({
        description: 'The weather in a city',
        inputSchema: jsonSchema<{ city: string; unit: string }>({ type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city', 'unit'] }),
        execute: async (input) => {
          calls.push(input);
          return { celsius: 21 };
        },
      }),
    },
  });
  // Arguments from the tool's schema; after the tool's result the model answers with text.
  expect(calls).toEqual([{ city: 'w0', unit: 'w1' }]);
  expect(result.steps).toHaveLength(2);
  expect(result.text).toBe(mockAnswerText(8));
  const second = upstream.attemptsFor('gpt-tools')[1]!.body as { input: { type?: string; call_id?: string; output?: unknown }[]; tools: { name: string }[] };
  expect(second.tools.map((declared) => declared.name)).toEqual(['get_weather']);
  const output = second.input.find((item) => item.type === 'function_call_output');
  expect(output?.call_id).toMatch(/^call_mock_/);
  expect(JSON.stringify(output?.output)).toContain('21');
});
