import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAnswerText, startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';

let mock: MockProvider;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  mock = await startMockProvider();
  openai = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'test', maxRetries: 0, timeout: 5_000 });
  anthropic = new Anthropic({ baseURL: mock.url, apiKey: 'test', maxRetries: 0, timeout: 5_000 });
});

afterAll(async () => {
  await mock.close();
});

const weatherSchema = {
  type: 'object' as const,
  properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
  required: ['city', 'unit'],
};

describe('the official openai SDK', () => {
  it('parses a non-streamed answer', async () => {
    const completion = await openai.chat.completions.create({
      model: 'gpt-mock?chunks=5',
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(completion.choices[0]?.message.content).toBe(mockAnswerText(5));
    expect(completion.model).toBe('gpt-mock');
    expect(completion.usage?.completion_tokens).toBe(5);
  });

  it('parses a streamed answer with usage', async () => {
    const stream = await openai.chat.completions.create({
      model: 'gpt-mock?chunks=4',
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null | undefined;
    let completionTokens: number | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish ??= chunk.choices[0]?.finish_reason;
      if (chunk.usage) completionTokens = chunk.usage.completion_tokens;
    }
    expect(text).toBe(mockAnswerText(4));
    expect(finish).toBe('stop');
    expect(completionTokens).toBe(4);
  });

  it('assembles a streamed tool call', async () => {
    const runner = openai.chat.completions.stream({
      model: 'gpt-mock?tool_call=get_weather',
      messages: [{ role: 'user', content: 'weather?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: weatherSchema } }],
    });
    const completion = await runner.finalChatCompletion();
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(call?.type).toBe('function');
    expect(call?.type === 'function' ? JSON.parse(call.function.arguments) : undefined).toEqual({ city: 'w0', unit: 'celsius' });
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('raises the mock errors as the SDK error classes, with retry-after visible', async () => {
    const failure = await openai.chat.completions
      .create({ model: 'gpt-mock?error=insufficient_quota&retry_after=3', messages: [{ role: 'user', content: 'x' }] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
    const error = failure as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error.code).toBe('insufficient_quota');
    expect(error.headers.get('retry-after')).toBe('3');
  });

  it('raises an in-band stream error as an APIError', async () => {
    const stream = await openai.chat.completions.create({
      model: 'gpt-mock?inband_error=server_error&error_after=1',
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
    });
    const consume = async (): Promise<void> => {
      for await (const chunk of stream) void chunk;
    };
    await expect(consume()).rejects.toBeInstanceOf(OpenAI.APIError);
  });

  it('decodes the default base64 embeddings', async () => {
    const answer = await openai.embeddings.create({ model: 'embed-mock', input: 'hello' });
    expect(answer.data[0]?.embedding).toHaveLength(8);
    expect(answer.data[0]?.embedding.every((value) => value >= -1 && value < 1)).toBe(true);
  });
});

describe('the official @anthropic-ai/sdk', () => {
  it('parses a non-streamed answer', async () => {
    const message = await anthropic.messages.create({
      model: 'claude-mock?chunks=3',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: mockAnswerText(3) }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.output_tokens).toBe(3);
  });

  it('accumulates a streamed answer', async () => {
    const stream = anthropic.messages.stream({
      model: 'claude-mock?chunks=6',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hello' }],
    });
    const message = await stream.finalMessage();
    expect(message.content).toMatchObject([{ type: 'text', text: mockAnswerText(6) }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.output_tokens).toBe(6);
  });

  it('accumulates a streamed tool_use block', async () => {
    const stream = anthropic.messages.stream({
      model: 'claude-mock?tool_call=get_weather',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'weather?' }],
      tools: [{ name: 'get_weather', input_schema: weatherSchema }],
    });
    const message = await stream.finalMessage();
    expect(message.content[0]).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'w0', unit: 'celsius' } });
    expect(message.stop_reason).toBe('tool_use');
  });

  it('raises 529 as an OverloadedError-shaped APIError and an in-band error as an APIError', async () => {
    const failure = await anthropic.messages
      .create({ model: 'claude-mock?status=529', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(Anthropic.APIError);
    expect((failure as InstanceType<typeof Anthropic.APIError>).status).toBe(529);

    const stream = anthropic.messages.stream({
      model: 'claude-mock?inband_error=overloaded&error_after=2',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'x' }],
    });
    await expect(stream.finalMessage()).rejects.toBeInstanceOf(Anthropic.APIError);
  });
});
