import { describe, expect, it } from 'vitest';
import { AnthropicStreamWriter } from '../../../src/dialects/anthropic-messages/anthropic-stream-writer.js';
import { anthropicAdapter } from '../../../src/providers/anthropic/adapter.js';
import type { StreamEvent } from '../../../src/providers/spec.js';
import type { SseFrame } from '../../../src/streaming/sse-frame.js';
import { SseDecoder } from '../../../src/streaming/decode-sse.js';
import { readFixture, replaySse } from '../../support/fixtures.js';

type Json = Record<string, unknown>;

function render(events: readonly StreamEvent[], options = { fallbackId: 'req_1', model: 'requested-model' }): string {
  const writer = new AnthropicStreamWriter(options);
  let text = '';
  for (const event of events) text += writer.write(event);
  return events.some((event) => event.type === 'provider-error') ? text : text + writer.end();
}

function framesOf(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  new SseDecoder().push(new TextEncoder().encode(text), frames);
  return frames;
}

/** A fixture as sent: one of them was saved without the blank line that ends its last event. */
function sseFixture(name: string): string {
  return `${readFixture('anthropic', name).trimEnd()}\n\n`;
}

/**
 * The frames' event types and key fields, with consecutive deltas of one block joined: how a
 * text or a JSON input is cut into deltas is the upstream's business, not the dialect's.
 */
async function outline(text: string): Promise<Json[]> {
  const items: Json[] = [];
  for (const frame of await framesOf(text)) {
    const data = JSON.parse(frame.data) as Json;
    expect(data.type).toBe(frame.event);
    const previous = items.at(-1);
    switch (frame.event) {
      case 'message_start': {
        const message = data.message as Json;
        const usage = message.usage as Json;
        items.push({ event: 'message_start', id: message.id, model: message.model, content: message.content, input_tokens: usage.input_tokens });
        break;
      }
      case 'content_block_start': {
        const { caller: _caller, ...block } = data.content_block as Json;
        items.push({ event: 'content_block_start', index: data.index, block });
        break;
      }
      case 'content_block_delta': {
        const delta = data.delta as Json;
        const piece = String(delta.text ?? delta.partial_json ?? delta.thinking ?? delta.signature);
        if (previous?.event === 'content_block_delta' && previous.index === data.index && previous.type === delta.type) {
          previous.joined += piece;
        } else {
          items.push({ event: 'content_block_delta', index: data.index, type: delta.type, joined: piece });
        }
        break;
      }
      case 'content_block_stop':
        items.push({ event: 'content_block_stop', index: data.index });
        break;
      case 'message_delta': {
        const delta = data.delta as Json;
        const usage = data.usage as Json;
        items.push({ event: 'message_delta', stop_reason: delta.stop_reason, stop_sequence: delta.stop_sequence, output_tokens: usage.output_tokens });
        break;
      }
      default:
        items.push({ event: frame.event, error: data.error });
    }
  }
  return items;
}

const TEXT_THEN_TOOL: StreamEvent[] = [
  { type: 'response-start', id: 'chatcmpl-9', responseModel: 'gpt-4.1-2025-04-14' },
  { type: 'text-delta', text: "I'll check" },
  { type: 'text-delta', text: ' the weather.' },
  { type: 'tool-call-start', index: 0, id: 'call_abc', name: 'get_weather' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '{"location":' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '"Paris"}' },
  { type: 'tool-call-end', index: 0 },
  // OpenAI-style upstreams send the finish before the usage.
  { type: 'finish', reason: 'tool_calls', providerReason: 'tool_calls' },
  { type: 'usage', usage: { inputTokens: 377, outputTokens: 65, cacheReadTokens: 100 } },
];

describe('AnthropicStreamWriter', () => {
  it('renders text then a tool call as Anthropic orders the events', async () => {
    expect(await outline(render(TEXT_THEN_TOOL))).toEqual([
      // message_start waits for content; usage that came only at the end is not known yet.
      { event: 'message_start', id: 'msg_req_1', model: 'gpt-4.1-2025-04-14', content: [], input_tokens: 0 },
      { event: 'content_block_start', index: 0, block: { type: 'text', text: '' } },
      { event: 'ping', error: undefined },
      { event: 'content_block_delta', index: 0, type: 'text_delta', joined: "I'll check the weather." },
      { event: 'content_block_stop', index: 0 },
      { event: 'content_block_start', index: 1, block: { type: 'tool_use', id: 'call_abc', name: 'get_weather', input: {} } },
      { event: 'content_block_delta', index: 1, type: 'input_json_delta', joined: '{"location":"Paris"}' },
      { event: 'content_block_stop', index: 1 },
      { event: 'message_delta', stop_reason: 'tool_use', stop_sequence: null, output_tokens: 65 },
      { event: 'message_stop', error: undefined },
    ]);
  });

  it('writes every frame as `event: <type>` then `data: <json>`', () => {
    const frames = render(TEXT_THEN_TOOL).split('\n\n');
    expect(frames.pop()).toBe('');
    for (const frame of frames) expect(frame).toMatch(/^event: (\w+)\ndata: \{"type":"\1".*\}$/);
  });

  it('carries the final usage, input counts included, in message_delta', async () => {
    const [delta] = (await framesOf(render(TEXT_THEN_TOOL))).filter((frame) => frame.event === 'message_delta');
    expect((JSON.parse(delta!.data) as Json).usage).toEqual({
      input_tokens: 277,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 0,
      output_tokens: 65,
    });
  });

  it.each([
    'messages-stream-text.sse',
    'messages-stream-tool-use.sse',
    'messages-stream-text-then-tool-use.sse',
    'messages-stream-refusal.sse',
    'messages-stream-thinking-tool-use.sse',
  ])(
    'renders what an Anthropic upstream streamed in %s back to the same event sequence',
    async (name) => {
      const fixture = sseFixture(name);
      const events = await replaySse(fixture, anthropicAdapter);
      expect(await outline(render(events))).toEqual(await outline(fixture));
    },
  );

  it('renders a signed thinking block and a redacted one where the upstream had them', async () => {
    const text = render([
      { type: 'response-start', id: 'msg_01Think', responseModel: 'claude-sonnet-4-5' },
      { type: 'reasoning-start' },
      { type: 'reasoning-delta', text: 'Paris, ' },
      { type: 'reasoning-delta', text: 'so get_weather.' },
      { type: 'reasoning-signature', signature: 'sig-1' },
      { type: 'reasoning-redacted', data: 'opaque' },
      { type: 'text-delta', text: 'Checking.' },
      { type: 'finish', reason: 'stop' },
    ]);
    const frames = framesOf(text).map((frame) => JSON.parse(frame.data) as Json);
    expect(frames.slice(1, 9)).toEqual([
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'ping' },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Paris, ' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'so get_weather.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-1' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'opaque' } },
      { type: 'content_block_stop', index: 1 },
    ]);
    expect(frames[9]).toEqual({ type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } });
  });

  it('shows no unsigned reasoning: an OpenAI-style stream renders as it did without it', async () => {
    const withReasoning: StreamEvent[] = [TEXT_THEN_TOOL[0]!, { type: 'reasoning-delta', text: 'thinking aloud' }, ...TEXT_THEN_TOOL.slice(1)];
    expect(render(withReasoning)).toBe(render(TEXT_THEN_TOOL));
  });

  it('opens a new text block after a tool block, numbering all blocks in order', async () => {
    const text = render([
      { type: 'tool-call-start', index: 0, id: 'call_1', name: 'a' },
      { type: 'tool-call-start', index: 1, id: 'call_2', name: 'b' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
      { type: 'text-delta', text: 'done' },
      { type: 'finish', reason: 'stop', stopSequence: 'END' },
    ]);
    expect((await outline(text)).map((item) => [item.event, item.index ?? item.stop_reason ?? null])).toEqual([
      ['message_start', null],
      ['content_block_start', 0],
      ['ping', null],
      ['content_block_stop', 0],
      ['content_block_start', 1],
      ['content_block_delta', 1],
      ['content_block_stop', 1],
      ['content_block_start', 2],
      ['content_block_delta', 2],
      ['content_block_stop', 2],
      ['message_delta', 'stop_sequence'],
      ['message_stop', null],
    ]);
  });

  it('puts usage known before the first content into message_start', async () => {
    const text = render([
      { type: 'response-start', id: 'msg_01Abc', responseModel: 'claude-haiku-4-5' },
      { type: 'usage', usage: { inputTokens: 656, outputTokens: 1, cacheWriteTokens: 56 } },
      { type: 'text-delta', text: 'Hi' },
      { type: 'finish', reason: 'stop' },
    ]);
    const start = JSON.parse((await framesOf(text))[0]!.data) as { message: Json };
    expect(start.message).toMatchObject({
      id: 'msg_01Abc',
      model: 'claude-haiku-4-5',
      usage: { input_tokens: 600, cache_creation_input_tokens: 56, cache_read_input_tokens: 0, output_tokens: 1 },
    });
  });

  it.each([
    ['server_error', 'overloaded_error'],
    ['timeout', 'overloaded_error'],
    ['rate_limit', 'rate_limit_error'],
    ['invalid_request', 'api_error'],
  ])('renders an in-band %s error as %s', (kind, type) => {
    const writer = new AnthropicStreamWriter({ fallbackId: 'req_1', model: 'm' });
    expect(writer.error({ kind, message: 'No target could answer.' })).toBe(
      `event: error\ndata: {"type":"error","error":{"type":"${type}","message":"No target could answer."}}\n\n`,
    );
  });

  it('renders a final error with its request id (inside and beside the error, as Anthropic does) and attempts', () => {
    const writer = new AnthropicStreamWriter({ fallbackId: 'req_1', model: 'm' });
    const attempts = [{ n: 1, target: 'a/b', kind: 'timeout', status: 200, latency_ms: 500 }];
    const [frame] = framesOf(writer.error({ kind: 'upstream_timeout', message: 'every attempt timed out', requestId: 'req_9', attempts }));
    expect(JSON.parse(frame!.data)).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'every attempt timed out', request_id: 'req_9', attempts },
      request_id: 'req_9',
    });
  });

  it('puts the gateway\'s input estimate in message_start when the upstream has reported no usage yet', () => {
    const writer = new AnthropicStreamWriter({ fallbackId: 'req_1', model: 'm', estimateInputTokens: () => 42 });
    const text = writer.write({ type: 'text-delta', text: 'Hi' }) + writer.write({ type: 'usage', usage: { inputTokens: 40, outputTokens: 1 } }) + writer.end();
    const frames = framesOf(text).map((frame) => JSON.parse(frame.data) as { type: string; message?: { usage: Json }; usage?: Json });
    expect(frames[0]!.message!.usage).toMatchObject({ input_tokens: 42, output_tokens: 0 });
    expect(frames.find((frame) => frame.type === 'message_delta')!.usage).toMatchObject({ input_tokens: 40, output_tokens: 1 });
  });

  it('renders a provider error event after the content sent so far', async () => {
    const fixture = sseFixture('messages-stream-error-overloaded.sse');
    const events = await replaySse(fixture, anthropicAdapter);
    const items = await outline(render(events));
    expect(items.at(-1)).toEqual({ event: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    expect(items.map((item) => item.event)).not.toContain('message_stop');
  });
});
