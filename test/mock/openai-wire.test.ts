import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAnswerText, startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import { chatBody, chatPath, parseFrames, postJson, readBody, type ChatChunk, openaiText } from './helpers.js';

let mock: MockProvider;

beforeAll(async () => {
  mock = await startMockProvider();
});

afterAll(async () => {
  await mock.close();
});

interface Completion {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: {
    index: number;
    message: { role: string; content: string | null; refusal: null; tool_calls?: unknown[] };
    finish_reason: string;
  }[];
  usage: Record<string, unknown>;
}

describe('OpenAI chat completions', () => {
  it('answers a non-streaming request in the chat.completion shape', async () => {
    // 24 characters of message text: ceil(24 / 4) = 6 input tokens.
    const body = { model: 'gpt-mock', messages: [{ role: 'user', content: 'abcdefghijklmnopqrstuvwx' }] };
    const response = await postJson(`${mock.url}${chatPath}`, body);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-request-id')).toMatch(/^req_mock_\d+$/);
    const completion = (await response.json()) as Completion;
    expect(completion.id).toMatch(/^chatcmpl-mock-\d+$/);
    expect(completion.object).toBe('chat.completion');
    expect(Number.isInteger(completion.created)).toBe(true);
    expect(completion.model).toBe('gpt-mock');
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: mockAnswerText(8), refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'stop',
      },
    ]);
    expect(completion.usage).toEqual({
      prompt_tokens: 6,
      completion_tokens: 8,
      total_tokens: 14,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    });
  });

  it('also serves /chat/completions and reports the model without its directives', async () => {
    const response = await postJson(`${mock.url}/chat/completions`, chatBody('gpt-mock?chunks=2&finish=length'));
    const completion = (await response.json()) as Completion;
    expect(completion.model).toBe('gpt-mock');
    expect(completion.choices[0]?.message.content).toBe('w0 w1');
    expect(completion.choices[0]?.finish_reason).toBe('length');
  });

  it('streams role chunk, content chunks, finish chunk and [DONE] without usage by default', async () => {
    const response = await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?chunks=3', { stream: true }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const read = await readBody(response);
    expect(read.ended).toBe(true);
    const frames = parseFrames(read.text);
    expect(frames.every((frame) => frame.event === undefined)).toBe(true);
    expect(frames.at(-1)?.data).toBe('[DONE]');
    const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.data) as ChatChunk & Record<string, unknown>);
    expect(chunks).toHaveLength(5);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '', refusal: null });
    expect(chunks.slice(1, 4).map((chunk) => chunk.choices[0]?.delta)).toEqual([
      { content: 'w0' },
      { content: ' w1' },
      { content: ' w2' },
    ]);
    expect(chunks[4]?.choices[0]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' });
    for (const chunk of chunks) {
      expect(chunk).not.toHaveProperty('usage');
      expect(chunk.object).toBe('chat.completion.chunk');
      expect(chunk.model).toBe('gpt-mock');
    }
    expect(openaiText(frames)).toBe(mockAnswerText(3));
  });

  it('adds "usage":null to every chunk and a usage chunk with no choices when include_usage is set', async () => {
    const body = chatBody('gpt-mock?chunks=2', { stream: true, stream_options: { include_usage: true } });
    const read = await readBody(await postJson(`${mock.url}${chatPath}`, body));
    const frames = parseFrames(read.text);
    expect(frames.at(-1)?.data).toBe('[DONE]');
    const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.data) as ChatChunk);
    const usageChunk = chunks.at(-1)!;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toMatchObject({ prompt_tokens: 6, completion_tokens: 2, total_tokens: 8 });
    for (const chunk of chunks.slice(0, -1)) expect(chunk.usage).toBeNull();
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('answers tool_call with one call to the named tool, not streamed', async () => {
    const response = await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?tool_call=get_weather'));
    const completion = (await response.json()) as Completion;
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toEqual([
      {
        id: completion.id.replace('chatcmpl-mock-', 'call_mock_'),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
      },
    ]);
  });

  it('streams tool_call arguments in fragments that join to the arguments', async () => {
    const read = await readBody(
      await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?tool_call=get_weather', { stream: true })),
    );
    const frames = parseFrames(read.text);
    expect(frames.at(-1)?.data).toBe('[DONE]');
    const deltas = frames.slice(0, -1).map((frame) => (JSON.parse(frame.data) as ChatChunk).choices[0]!);
    type ToolDelta = { index: number; id?: string; type?: string; function: { name?: string; arguments: string } };
    const first = (deltas[0]!.delta.tool_calls as ToolDelta[])[0]!;
    expect(deltas[0]!.delta.role).toBe('assistant');
    expect(first).toMatchObject({ index: 0, type: 'function', function: { name: 'get_weather', arguments: '' } });
    expect(first.id).toMatch(/^call_mock_\d+$/);
    const fragments = deltas
      .slice(1, -1)
      .map((choice) => (choice.delta.tool_calls as ToolDelta[])[0]!.function.arguments);
    expect(fragments).toHaveLength(3);
    expect(JSON.parse(fragments.join(''))).toEqual({ city: 'Paris', unit: 'celsius' });
    expect(deltas.at(-1)?.finish_reason).toBe('tool_calls');
  });
});

describe('OpenAI embeddings', () => {
  interface Embeddings {
    object: string;
    data: { object: string; index: number; embedding: number[] | string }[];
    model: string;
    usage: { prompt_tokens: number; total_tokens: number };
  }

  it('answers deterministic 8-dimensional float vectors', async () => {
    const body = { model: 'embed-mock?chunks=1', input: ['alpha', 'beta'], encoding_format: 'float' };
    const first = (await (await postJson(`${mock.url}/v1/embeddings`, body)).json()) as Embeddings;
    const second = (await (await postJson(`${mock.url}/v1/embeddings`, body)).json()) as Embeddings;
    expect(first.object).toBe('list');
    expect(first.model).toBe('embed-mock');
    expect(first.data.map((item) => [item.object, item.index])).toEqual([
      ['embedding', 0],
      ['embedding', 1],
    ]);
    expect(first.data[0]!.embedding).toHaveLength(8);
    expect(first.data[0]!.embedding).not.toEqual(first.data[1]!.embedding);
    expect(second.data).toEqual(first.data);
    expect(first.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
  });

  it('encodes base64 float32 when asked, with the same values', async () => {
    const floats = (await (
      await postJson(`${mock.url}/v1/embeddings`, { model: 'embed-mock', input: 'x', encoding_format: 'float' })
    ).json()) as Embeddings;
    const encoded = (await (
      await postJson(`${mock.url}/v1/embeddings`, { model: 'embed-mock', input: 'x', encoding_format: 'base64' })
    ).json()) as Embeddings;
    const bytes = Buffer.from(encoded.data[0]!.embedding as string, 'base64');
    const decoded = Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4));
    expect(decoded).toEqual(floats.data[0]!.embedding);
  });

  it('takes the same faults as chat', async () => {
    const response = await postJson(`${mock.url}/v1/embeddings`, { model: 'embed-mock?status=429', input: 'x' });
    expect(response.status).toBe(429);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
  });

  it('rejects a missing input with a 400 invalid_request_error', async () => {
    const response = await postJson(`${mock.url}/v1/embeddings`, { model: 'embed-mock' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
  });
});
