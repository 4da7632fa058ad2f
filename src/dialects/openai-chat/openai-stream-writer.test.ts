import { describe, expect, it } from 'vitest';
import { OpenAiStreamWriter } from './openai-stream-writer.js';

const parse = (text: string) =>
  text
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => frame.slice(6))
    .map((data) => (data === '[DONE]' ? data : (JSON.parse(data) as Record<string, unknown>)));

describe('OpenAiStreamWriter', () => {
  it('renders chunks with the upstream id and model, the role on the first, the finish, then usage (if asked) and [DONE]', () => {
    const writer = new OpenAiStreamWriter({ fallbackId: 'chatcmpl-fallback', model: 'route-name', includeUsage: true });
    let text = writer.write({ type: 'response-start', id: 'chatcmpl-up', responseModel: 'gpt-4o-2024-08-06', created: 1700000000 });
    text += writer.write({ type: 'text-delta', text: 'Hel' });
    text += writer.write({ type: 'text-delta', text: 'lo' });
    text += writer.write({ type: 'usage', usage: { inputTokens: 5, outputTokens: 2, cacheReadTokens: 1 } });
    text += writer.write({ type: 'finish', reason: 'stop' });
    text += writer.end();
    const frames = parse(text);
    expect(frames).toEqual([
      { id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-4o-2024-08-06', choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, logprobs: null, finish_reason: null }] },
      { id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-4o-2024-08-06', choices: [{ index: 0, delta: { content: 'lo' }, logprobs: null, finish_reason: null }] },
      { id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-4o-2024-08-06', choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }] },
      {
        id: 'chatcmpl-up',
        object: 'chat.completion.chunk',
        created: 1700000000,
        model: 'gpt-4o-2024-08-06',
        choices: [],
        usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7, prompt_tokens_details: { cached_tokens: 1 } },
      },
      '[DONE]',
    ]);
  });

  it('renders tool calls as a start with the name and argument fragments', () => {
    const writer = new OpenAiStreamWriter({ fallbackId: 'f', model: 'm', includeUsage: false });
    const frames = parse(
      writer.write({ type: 'tool-call-start', index: 0, id: 'call_1', name: 'get_weather' }) +
        writer.write({ type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":' }) +
        writer.write({ type: 'tool-call-end', index: 0 }) +
        writer.write({ type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } }) +
        writer.write({ type: 'finish', reason: 'tool_calls' }) +
        writer.end(),
    ) as { choices: { delta: Record<string, unknown>; finish_reason: string | null }[] }[];
    expect(frames[0]!.choices[0]!.delta).toEqual({
      role: 'assistant',
      tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }],
    });
    expect(frames[1]!.choices[0]!.delta).toEqual({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] });
    expect(frames[2]!.choices[0]!.finish_reason).toBe('tool_calls');
    // No usage chunk: the caller did not ask for one.
    expect(frames).toHaveLength(4);
  });

  it('an error frame is what the SDKs raise on', () => {
    const writer = new OpenAiStreamWriter({ fallbackId: 'f', model: 'm', includeUsage: false });
    expect(parse(writer.error({ kind: 'stream_interrupted', message: 'cut' }))).toEqual([
      { error: { message: 'cut', type: 'stream_interrupted', param: null, code: 'stream_interrupted' } },
    ]);
  });

  it('a final error after a heartbeat also names the request and its attempts', () => {
    const writer = new OpenAiStreamWriter({ fallbackId: 'f', model: 'm', includeUsage: false });
    const attempts = [{ n: 1, target: 'a/b', kind: 'timeout', status: 200, latency_ms: 500 }];
    expect(parse(writer.error({ kind: 'upstream_timeout', message: 'slow', requestId: 'req_9', attempts }))).toEqual([
      { error: { message: 'slow', type: 'upstream_timeout', param: null, code: 'upstream_timeout', request_id: 'req_9', attempts } },
    ]);
  });
});
