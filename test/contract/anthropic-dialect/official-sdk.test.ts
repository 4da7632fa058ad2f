import Anthropic from '@anthropic-ai/sdk';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAnthropicMessages } from '../../../src/dialects/anthropic-messages/parse-anthropic-messages.js';
import { AnthropicStreamWriter } from '../../../src/dialects/anthropic-messages/anthropic-stream-writer.js';
import { renderAnthropicMessage } from '../../../src/dialects/anthropic-messages/render-anthropic-message.js';
import { anthropicAdapter } from '../../../src/providers/anthropic/adapter.js';
import type { ChatResult, StreamEvent } from '../../../src/providers/spec.js';
import { readFixture, replaySse } from '../../support/fixtures.js';
import { REDACTED_THINKING_DATA, THINKING_SIGNATURE } from '../anthropic/cached-thinking-turn.js';

/** What the stand-in gateway answers next: a JSON body, or an SSE text. */
type Answer = { json: unknown } | { sse: string };

let server: Server;
let client: Anthropic;
let next: Answer = { json: {} };
let lastBody: unknown;

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      lastBody = JSON.parse(text);
      if (request.method !== 'POST' || request.url !== '/v1/messages') {
        response.writeHead(404).end();
      } else if ('json' in next) {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(next.json));
      } else {
        response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' }).end(next.sse);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = new Anthropic({ baseURL: `http://127.0.0.1:${port}`, apiKey: 'x', maxRetries: 0, timeout: 5_000 });
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const PARAMS = {
  model: 'claude-haiku-4-5',
  max_tokens: 256,
  messages: [{ role: 'user' as const, content: 'What is the weather in Paris?' }],
  tools: [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: { location: { type: 'string' } } } }],
};

const RESULT: ChatResult = {
  id: 'chatcmpl-9',
  responseModel: 'gpt-4.1-2025-04-14',
  text: "I'll check the weather.",
  toolCalls: [{ id: 'call_abc', name: 'get_weather', arguments: '{"location":"Paris"}' }],
  finishReason: 'tool_calls',
  usage: { inputTokens: 377, outputTokens: 65, cacheReadTokens: 100 },
};

const EVENTS: StreamEvent[] = [
  { type: 'response-start', id: 'chatcmpl-9', responseModel: 'gpt-4.1-2025-04-14' },
  { type: 'text-delta', text: "I'll check" },
  { type: 'text-delta', text: ' the weather.' },
  { type: 'tool-call-start', index: 0, id: 'call_abc', name: 'get_weather' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '{"location":' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '"Paris"}' },
  { type: 'finish', reason: 'tool_calls' },
  { type: 'usage', usage: { inputTokens: 377, outputTokens: 65, cacheReadTokens: 100 } },
];

function renderStream(events: readonly StreamEvent[], error?: { kind: string; message: string }): string {
  const writer = new AnthropicStreamWriter({ fallbackId: 'req_1', model: 'claude-haiku-4-5' });
  const text = events.map((event) => writer.write(event)).join('');
  return error === undefined ? text + writer.end() : text + writer.error(error);
}

const EXPECTED_CONTENT = [
  { type: 'text', text: "I'll check the weather." },
  { type: 'tool_use', id: 'call_abc', name: 'get_weather', input: { location: 'Paris' } },
];

describe('the official @anthropic-ai/sdk against the Anthropic dialect', () => {
  it('sends requests the parser accepts', async () => {
    next = { json: renderAnthropicMessage(RESULT, { fallbackId: 'req_1' }) };
    await client.messages.create({ ...PARAMS, stop_sequences: ['END'], tool_choice: { type: 'any' } });
    const { requestedModel, request } = parseAnthropicMessages(lastBody);
    expect(requestedModel).toBe('claude-haiku-4-5');
    expect(request).toMatchObject({ maxOutputTokens: 256, stop: ['END'], toolChoice: 'required', stream: false });
  });

  it('parses a rendered message', async () => {
    next = { json: renderAnthropicMessage(RESULT, { fallbackId: 'req_1' }) };
    const message = await client.messages.create(PARAMS);
    expect(message.id).toBe('msg_req_1');
    expect(message.model).toBe('gpt-4.1-2025-04-14');
    expect(message.content).toEqual(EXPECTED_CONTENT);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toMatchObject({ input_tokens: 277, cache_read_input_tokens: 100, output_tokens: 65 });
  });

  it('reads a rendered stream event by event', async () => {
    next = { sse: renderStream(EVENTS) };
    const stream = await client.messages.create({ ...PARAMS, stream: true });
    const types: string[] = [];
    let text = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
    }
    expect(text).toBe("I'll check the weather.");
    expect(types.at(0)).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
  });

  it('assembles a rendered stream into the final message', async () => {
    next = { sse: renderStream(EVENTS) };
    const message = await client.messages.stream(PARAMS).finalMessage();
    expect(message.content).toEqual(EXPECTED_CONTENT);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.stop_sequence).toBeNull();
    // Input counts came only with the final usage, after the finish: message_delta carried them.
    expect(message.usage).toMatchObject({ input_tokens: 277, cache_read_input_tokens: 100, output_tokens: 65 });
  });

  it('assembles streamed thinking with its signature, and sends it back in a form the parser keeps', async () => {
    const events = await replaySse(readFixture('anthropic', 'messages-stream-thinking-tool-use.sse'), anthropicAdapter);
    next = { sse: renderStream(events) };
    const message = await client.messages.stream(PARAMS).finalMessage();
    const thinking = 'The user wants the weather in Paris. I should call get_weather with the city.';
    expect(message.content.slice(0, 2)).toEqual([
      { type: 'thinking', thinking, signature: THINKING_SIGNATURE },
      { type: 'redacted_thinking', data: REDACTED_THINKING_DATA },
    ]);

    // The next turn, as a tool-running client sends it: the assistant content exactly as received.
    next = { json: renderAnthropicMessage(RESULT, { fallbackId: 'req_2' }) };
    await client.messages.create({
      ...PARAMS,
      messages: [
        ...PARAMS.messages,
        { role: 'assistant', content: message.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01ThinkingToolUseReconstr', content: '18°C' }] },
      ],
    });
    expect(parseAnthropicMessages(lastBody).request.messages[1]).toMatchObject({
      role: 'assistant',
      reasoningBlocks: [
        { type: 'thinking', text: thinking, signature: THINKING_SIGNATURE },
        { type: 'redacted', data: REDACTED_THINKING_DATA },
      ],
    });
  });

  it('raises on an error event after some content', async () => {
    next = { sse: renderStream(EVENTS.slice(0, 3), { kind: 'server_error', message: 'All targets failed.' }) };
    const failure = await client.messages
      .stream(PARAMS)
      .finalMessage()
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(Anthropic.APIError);
    expect((failure as InstanceType<typeof Anthropic.APIError>).message).toContain('All targets failed.');
    expect((failure as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
  });
});
