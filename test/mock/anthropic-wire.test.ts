import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAnswerText, startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import { anthropicText, messagesBody, messagesPath, parseFrames, postJson, readBody } from './helpers.js';

let mock: MockProvider;
/** Anthropic breaks its cache writes down by TTL, zeros included. */
const NO_CACHE_WRITES = { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 };

beforeAll(async () => {
  mock = await startMockProvider();
});

afterAll(async () => {
  await mock.close();
});

describe('Anthropic messages', () => {
  it('answers a non-streaming request in the Messages shape', async () => {
    // System (8 characters) + message (22 characters) = 30 characters: ceil(30 / 4) = 8 input tokens.
    const body = messagesBody('claude-mock?chunks=4', { system: 'Be brief' });
    const response = await postJson(`${mock.url}${messagesPath}`, body);
    expect(response.status).toBe(200);
    expect(response.headers.get('request-id')).toMatch(/^req_mock_\d+$/);
    const message = (await response.json()) as Record<string, unknown>;
    expect(message).toEqual({
      model: 'claude-mock',
      id: expect.stringMatching(/^msg_mock_\d+$/) as unknown,
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: mockAnswerText(4) }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 8, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, cache_creation: NO_CACHE_WRITES, output_tokens: 4 },
    });
  });

  it('counts text blocks of structured content', async () => {
    const body = {
      model: 'claude-mock',
      max_tokens: 16,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'abcdefgh' }] }],
    };
    const message = (await (await postJson(`${mock.url}${messagesPath}`, body)).json()) as {
      usage: { input_tokens: number };
    };
    expect(message.usage.input_tokens).toBe(2);
  });

  it('streams the events in exactly the real order, with event lines', async () => {
    const response = await postJson(`${mock.url}${messagesPath}`, messagesBody('claude-mock?chunks=3', { stream: true }));
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const read = await readBody(response);
    expect(read.ended).toBe(true);
    const frames = parseFrames(read.text);
    expect(frames.map((frame) => frame.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const events = frames.map((frame) => JSON.parse(frame.data) as Record<string, unknown>);
    events.forEach((event, index) => expect(event.type).toBe(frames[index]!.event));
    expect(events[0]).toMatchObject({
      message: {
        model: 'claude-mock',
        type: 'message',
        role: 'assistant',
        content: [],
        stop_reason: null,
        usage: { input_tokens: 6, output_tokens: 1 },
      },
    });
    expect(events[1]).toEqual({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    expect(events[3]).toEqual({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'w0' } });
    expect(events[7]).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { input_tokens: 6, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, cache_creation: NO_CACHE_WRITES, output_tokens: 3 },
    });
    expect(anthropicText(frames)).toBe(mockAnswerText(3));
  });

  it('maps finish directives onto stop reasons', async () => {
    const reasons: string[] = [];
    for (const finish of ['length', 'content_filter', 'stop']) {
      const response = await postJson(`${mock.url}${messagesPath}`, messagesBody(`claude-mock?finish=${finish}`));
      reasons.push(((await response.json()) as { stop_reason: string }).stop_reason);
    }
    expect(reasons).toEqual(['max_tokens', 'refusal', 'end_turn']);
  });

  it('answers tool_call with a tool_use block, not streamed', async () => {
    const response = await postJson(`${mock.url}${messagesPath}`, messagesBody('claude-mock?tool_call=get_weather'));
    const message = (await response.json()) as { id: string; content: unknown[]; stop_reason: string };
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      {
        type: 'tool_use',
        id: message.id.replace('msg_mock_', 'toolu_mock_'),
        name: 'get_weather',
        input: { city: 'Paris', unit: 'celsius' },
      },
    ]);
  });

  it('streams tool_call as a tool_use block with input_json_delta fragments', async () => {
    const read = await readBody(
      await postJson(`${mock.url}${messagesPath}`, messagesBody('claude-mock?tool_call=get_weather', { stream: true })),
    );
    const frames = parseFrames(read.text);
    expect(frames.map((frame) => frame.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const start = JSON.parse(frames[1]!.data) as { content_block: Record<string, unknown> };
    expect(start.content_block).toMatchObject({ type: 'tool_use', name: 'get_weather', input: {} });
    expect(start.content_block.id).toMatch(/^toolu_mock_\d+$/);
    const fragments = frames
      .filter((frame) => frame.event === 'content_block_delta')
      .map((frame) => JSON.parse(frame.data) as { delta: { type: string; partial_json: string } })
      .map((event) => {
        expect(event.delta.type).toBe('input_json_delta');
        return event.delta.partial_json;
      });
    expect(JSON.parse(fragments.join(''))).toEqual({ city: 'Paris', unit: 'celsius' });
    expect(JSON.parse(frames[7]!.data)).toMatchObject({ delta: { stop_reason: 'tool_use' } });
  });
});
