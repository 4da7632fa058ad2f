import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAnswerText, startMockProvider, type MockProvider } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';

let gateway: TestGateway;
/** A separate mock, reached through real `gemini` and `bedrock` connections (keys, SigV4). */
let upstream: MockProvider;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startMockProvider();
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
  gemini-real: { provider: gemini, api_key: gemini-test-key, base_url: "${upstream.url}/v1beta" }
  bedrock-iam:
    provider: bedrock
    region: us-east-1
    base_url: "${upstream.url}"
    aws_access_key_id: AKIDEXAMPLE
    aws_secret_access_key: bedrock-test-secret
routes:
  via-gemini: { targets: [{ connection: mock-gemini, model: gemini-mock }] }
  via-bedrock: { targets: [{ connection: mock-bedrock, model: bedrock-mock }] }
  tools-gemini: { targets: [{ connection: mock-gemini, model: "gemini-mock?tool_call=get_weather" }] }
  tools-bedrock: { targets: [{ connection: mock-bedrock, model: "bedrock-mock?tool_call=get_weather" }] }
  gemini-keyed: { targets: [{ connection: gemini-real, model: gemini-keyed }] }
  bedrock-signed: { targets: [{ connection: bedrock-iam, model: "anthropic.claude-mock-v1:0" }] }
  gemini-then-bedrock:
    retries: 0
    targets:
      - { connection: mock-gemini, model: "gemini-down?status=503" }
      - { connection: mock-bedrock, model: bedrock-standby }
`);
  client = openAiClient(gateway.url);
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

const expectedText = mockAnswerText(8);

describe.each([
  ['via-gemini', 'mock-gemini/gemini-mock'],
  ['via-bedrock', 'mock-bedrock/bedrock-mock'],
])('the official openai SDK through route %s', (route, servedBy) => {
  it('gets a non-streamed answer with usage', async () => {
    const { data, response } = await client.chat.completions.create({ model: route, messages: [{ role: 'user', content: 'Hello there' }] }).withResponse();
    expect(data.choices[0]!.message.content).toBe(expectedText);
    expect(data.choices[0]!.finish_reason).toBe('stop');
    expect(data.usage!.completion_tokens).toBe(8);
    expect(data.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(data.usage!.total_tokens).toBe(data.usage!.prompt_tokens + 8);
    expect(response.headers.get('x-switchyard-served-by')).toBe(servedBy);
  });

  it('gets a streamed answer whose usage matches the non-streamed one', async () => {
    const stream = await client.chat.completions.create({
      model: route,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Hello there' }],
    });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(expectedText);
    expect(finish).toBe('stop');
    expect(usage?.completion_tokens).toBe(8);
    expect(usage?.prompt_tokens).toBeGreaterThan(0);
  });
});

describe.each(['tools-gemini', 'tools-bedrock'])('tool calls through %s', (route) => {
  const tools: OpenAI.ChatCompletionTool[] = [
    { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
  ];

  it('come back as OpenAI tool calls, streamed and not', async () => {
    const whole = await client.chat.completions.create({ model: route, tools, messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    const call = whole.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(whole.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toBeTypeOf('object');

    const stream = await client.chat.completions.create({ model: route, tools, stream: true, messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    let streamedArguments = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      streamedArguments += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe('tool_calls');
    expect(JSON.parse(streamedArguments)).toEqual(JSON.parse(call.function.arguments));
  });
});

describe('real provider connections against the mock', () => {
  it('a gemini connection sends its key in x-goog-api-key, never in the URL', async () => {
    const answer = await client.chat.completions.create({ model: 'gemini-keyed', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.choices[0]!.message.content).toBe(expectedText);
    const attempt = upstream.attemptsFor('gemini-keyed').at(-1)!;
    expect(attempt.headers['x-goog-api-key']).toBe('gemini-test-key');
    expect(attempt.path).not.toContain('gemini-test-key');
  });

  it('a bedrock connection with IAM keys signs every attempt with SigV4 for its region', async () => {
    const stream = await client.chat.completions.create({ model: 'bedrock-signed', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(expectedText);
    const attempt = upstream.attemptsFor('anthropic.claude-mock-v1:0').at(-1)!;
    expect(attempt.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=\S+, Signature=[0-9a-f]{64}$/);
    expect(attempt.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    expect(JSON.stringify(attempt.headers)).not.toContain('bedrock-test-secret');
  });
});

it('a 503 from a Gemini target fails over to a Bedrock target, and the model named is the one that answered', async () => {
  const { data, response } = await client.chat.completions.create({ model: 'gemini-then-bedrock', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  expect(response.headers.get('x-switchyard-attempts')).toBe('2');
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-bedrock/bedrock-standby');
  expect(data.model).toBe('bedrock-standby');
  expect(data.choices[0]!.message.content).toBe(expectedText);
});
