import { describe, expect, it } from 'vitest';
import { renderAnthropicMessage } from '../../../src/dialects/anthropic-messages/render-anthropic-message.js';
import { anthropicAdapter } from '../../../src/providers/anthropic/adapter.js';
import type { ChatResult } from '../../../src/providers/spec.js';
import { readFixture } from '../../support/fixtures.js';

type Json = Record<string, unknown>;

function fixtureJson(name: string): Json {
  return JSON.parse(readFixture('anthropic', name)) as Json;
}

/** The fields the gateway renders, as the fixture has them (the rest is Anthropic-only detail). */
function renderedFields(body: Json): Json {
  const usage = body.usage as Json;
  return {
    id: body.id,
    type: body.type,
    role: body.role,
    model: body.model,
    content: (body.content as Json[]).map(({ caller: _caller, ...block }) => block),
    stop_reason: body.stop_reason,
    stop_sequence: body.stop_sequence,
    usage: {
      input_tokens: usage.input_tokens,
      cache_creation_input_tokens: usage.cache_creation_input_tokens,
      cache_read_input_tokens: usage.cache_read_input_tokens,
      output_tokens: usage.output_tokens,
    },
  };
}

function result(overrides: Partial<ChatResult> = {}): ChatResult {
  return { id: 'chatcmpl-1', responseModel: 'gpt-4.1', text: 'Hi.', toolCalls: [], finishReason: 'stop', ...overrides };
}

describe('renderAnthropicMessage', () => {
  it.each([
    'messages-response-text.json',
    'messages-response-tool-use.json',
    'messages-response-refusal.json',
    'messages-response-thinking-tool-use.json',
  ])(
    'renders what an Anthropic upstream answered in %s back to the same body',
    (name) => {
      const fixture = fixtureJson(name);
      const rendered = renderAnthropicMessage(anthropicAdapter.parseResponse(fixture), { fallbackId: 'req_1' });
      expect(rendered).toEqual(renderedFields(fixture));
    },
  );

  it('renders text, then tool calls, with input parsed from the arguments', () => {
    const rendered = renderAnthropicMessage(
      result({
        text: 'Checking.',
        toolCalls: [
          { id: 'call_1', name: 'get_weather', arguments: '{"location":"Paris"}' },
          { id: 'call_2', name: 'get_time', arguments: '{"zone":' },
        ],
        finishReason: 'tool_calls',
      }),
      { fallbackId: 'req_abc' },
    );
    expect(rendered).toMatchObject({
      id: 'msg_req_abc',
      model: 'gpt-4.1',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { location: 'Paris' } },
        { type: 'tool_use', id: 'call_2', name: 'get_time', input: {} },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
    });
  });

  it('renders signed and redacted thinking first, and leaves out reasoning no one signed', () => {
    const rendered = renderAnthropicMessage(
      result({
        reasoning: 'unsigned thoughts',
        reasoningBlocks: [
          { type: 'thinking', text: 'unsigned thoughts' },
          { type: 'thinking', text: 'signed thoughts', signature: 'sig' },
          { type: 'redacted', data: 'opaque' },
        ],
      }),
      { fallbackId: 'req_1' },
    );
    expect(rendered.content).toEqual([
      { type: 'thinking', thinking: 'signed thoughts', signature: 'sig' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: 'Hi.' },
    ]);
    // Reasoning text from a provider without blocks (OpenAI, Gemini) is not shown at all.
    expect(renderAnthropicMessage(result({ reasoning: 'thoughts' }), { fallbackId: 'req_1' }).content).toEqual([{ type: 'text', text: 'Hi.' }]);
  });

  it.each([
    [{ finishReason: 'stop' }, 'end_turn', null],
    [{ finishReason: 'stop', stopSequence: '\n\nHuman:' }, 'stop_sequence', '\n\nHuman:'],
    [{ finishReason: 'length' }, 'max_tokens', null],
    [{ finishReason: 'content_filter' }, 'refusal', null],
    [{ finishReason: 'stop', providerFinishReason: 'pause_turn' }, 'pause_turn', null],
    [{ finishReason: 'length', providerFinishReason: 'model_context_window_exceeded' }, 'model_context_window_exceeded', null],
    [{ finishReason: 'stop', providerFinishReason: 'STOP' }, 'end_turn', null],
  ] as const)('renders the finish %j as stop_reason %s', (overrides, stopReason, stopSequence) => {
    const rendered = renderAnthropicMessage(result(overrides), { fallbackId: 'req_1' });
    expect(rendered.stop_reason).toBe(stopReason);
    expect(rendered.stop_sequence).toBe(stopSequence);
  });

  it('takes cache reads and writes out of input_tokens, never below zero', () => {
    const cached = renderAnthropicMessage(
      result({ usage: { inputTokens: 1000, outputTokens: 20, cacheReadTokens: 700, cacheWriteTokens: 200 } }),
      { fallbackId: 'req_1' },
    );
    expect(cached.usage).toEqual({ input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 700, cache_creation_input_tokens: 200 });
    const inconsistent = renderAnthropicMessage(result({ usage: { inputTokens: 5, outputTokens: 1, cacheReadTokens: 9 } }), {
      fallbackId: 'req_1',
    });
    expect((inconsistent.usage as Json).input_tokens).toBe(0);
  });

  it('keeps an empty answer as an empty content list', () => {
    expect(renderAnthropicMessage(result({ text: '' }), { fallbackId: 'req_1' }).content).toEqual([]);
  });
});
