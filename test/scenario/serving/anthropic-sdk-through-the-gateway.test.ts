import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { anthropicClient } from '../../support/sdk-clients.js';

let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  claude-native: { targets: [{ connection: mock-anthropic, model: claude-native }] }
  claude-via-openai: { targets: [{ connection: mock-openai, model: gpt-behind-claude }] }
  claude-via-gemini: { targets: [{ connection: mock-gemini, model: gemini-behind-claude }] }
  claude-via-bedrock: { targets: [{ connection: mock-bedrock, model: bedrock-behind-claude }] }
  claude-overloaded:
    retries: 0
    targets:
      - { connection: mock-anthropic, model: "claude-busy?status=529" }
      - { connection: mock-openai, model: gpt-rescue }
  claude-cut:
    targets: [{ connection: mock-anthropic, model: "claude-cut?cut_after=3" }]
  claude-tools: { targets: [{ connection: mock-openai, model: "gpt-tools?tool_call=get_weather" }] }
`);
  client = anthropicClient(gateway.url);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const hello = [{ role: 'user' as const, content: 'Hello' }];

describe.each([
  ['claude-native', 'claude-native'],
  ['claude-via-openai', 'gpt-behind-claude'],
  ['claude-via-gemini', 'gemini-behind-claude'],
  ['claude-via-bedrock', 'bedrock-behind-claude'],
])('the official @anthropic-ai/sdk through route %s', (route, answeringModel) => {
  it('gets a non-streamed answer with usage', async () => {
    const message = await client.messages.create({ model: route, max_tokens: 64, messages: hello });
    expect(message.type).toBe('message');
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: mockAnswerText(8) })]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.model).toBe(answeringModel);
    expect(message.usage.output_tokens).toBe(8);
  });

  it('gets a streamed answer with the full event sequence', async () => {
    const stream = client.messages.stream({ model: route, max_tokens: 64, messages: hello });
    const types: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    const message = await stream.finalMessage();
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: mockAnswerText(8) })]);
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(types).toContain('message_delta');
  });
});

it('a 529 from the Anthropic target fails over to an OpenAI target, invisibly', async () => {
  const { data, response } = await client.messages.create({ model: 'claude-overloaded', max_tokens: 64, messages: hello }).withResponse();
  expect(data.content).toEqual([expect.objectContaining({ type: 'text', text: mockAnswerText(8) })]);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/gpt-rescue');
  expect(gateway.mock.attemptsFor('claude-busy')).toHaveLength(1);
});

it('an interrupted stream makes the SDK raise', async () => {
  const stream = client.messages.stream({ model: 'claude-cut', max_tokens: 64, messages: hello });
  await expect(stream.finalMessage()).rejects.toThrow();
});

it('tool calls come back as tool_use blocks, even from an OpenAI-dialect target', async () => {
  const message = await client.messages.create({
    model: 'claude-tools',
    max_tokens: 64,
    tools: [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
  });
  expect(message.stop_reason).toBe('tool_use');
  expect(message.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'get_weather', input: { city: 'w0' } })]);
});

it('errors come in the Anthropic shape the SDK understands', async () => {
  const missing = await client.messages.create({ model: 'no-such-route', max_tokens: 8, messages: hello }).catch((error: unknown) => error);
  expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
  const response = await fetch(`${gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-native', messages: hello }),
  });
  expect(response.status).toBe(400);
  const body = (await response.json()) as { type: string; error: { type: string; message: string } };
  expect(body.type).toBe('error');
  expect(body.error.type).toBe('invalid_request_error');
  expect(body.error.message).toContain('max_tokens');
});

it('count_tokens is answered by the gateway tokenizer, no provider contacted', async () => {
  const counted = await client.messages.countTokens({ model: 'claude-native', messages: [{ role: 'user', content: 'Hello there, how are you today?' }] });
  expect(counted.input_tokens).toBeGreaterThan(5);
  expect(counted.input_tokens).toBeLessThan(30);
  expect(gateway.mock.attempts).toHaveLength(0);
});
