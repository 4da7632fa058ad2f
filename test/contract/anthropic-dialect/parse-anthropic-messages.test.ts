import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { parseAnthropicMessages } from '../../../src/dialects/anthropic-messages/parse-anthropic-messages.js';
import { anthropicAdapter } from '../../../src/providers/anthropic/adapter.js';
import type { ChatRequest, ToolDefinition } from '../../../src/providers/spec.js';
import { readFixture } from '../../support/fixtures.js';
import { CACHED_THINKING_TURN } from '../anthropic/cached-thinking-turn.js';

function fixtureBody(name: string): Record<string, unknown> {
  return JSON.parse(readFixture('anthropic', name)) as Record<string, unknown>;
}

function rejection(body: unknown): GatewayError {
  try {
    parseAnthropicMessages(body);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('the body was accepted');
}

const CALL_ID = 'toolu_01A9HHF5Ezy3oBrKmSgfASm9';
const WEATHER_TOOL: ToolDefinition = {
  name: 'get_weather',
  description: 'Lookup the weather for a given city in either celsius or fahrenheit',
  parameters: {
    additionalProperties: false,
    properties: {
      location: { description: 'The city and state, e.g. San Francisco, CA', title: 'Location', type: 'string' },
      units: {
        description: "Unit for the output, either 'c' for celsius or 'f' for fahrenheit",
        enum: ['c', 'f'],
        title: 'Units',
        type: 'string',
      },
    },
    required: ['location', 'units'],
    type: 'object',
  },
};

describe('parseAnthropicMessages', () => {
  it('maps the full request shape onto the canonical request', () => {
    const expected: ChatRequest = {
      messages: [
        { role: 'system', content: 'You are a concise weather assistant.' },
        { role: 'user', content: [{ type: 'text', text: 'What is the weather in SF?' }] },
        {
          role: 'assistant',
          content: [{ type: 'text', text: "I'll look that up." }],
          toolCalls: [{ id: CALL_ID, name: 'get_weather', arguments: '{"location":"San Francisco, CA","units":"f"}' }],
        },
        { role: 'tool', toolCallId: CALL_ID, content: [{ type: 'text', text: 'The weather is 73f' }] },
        { role: 'user', content: [{ type: 'text', text: 'Also, should I bring a jacket?' }] },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Get the weather for a specific location',
          parameters: {
            type: 'object',
            properties: { location: { type: 'string' }, units: { type: 'string', enum: ['c', 'f'] } },
            required: ['location'],
          },
        },
      ],
      toolChoice: 'auto',
      maxOutputTokens: 1024,
      temperature: 0.7,
      topP: 0.9,
      stop: ['\n\nHuman:'],
      stream: true,
      includeUsage: true,
      shownReasoning: 'none',
      user: 'user-1234',
    };
    expect(parseAnthropicMessages(fixtureBody('messages-request-full-shape.json'))).toEqual({
      requestedModel: 'claude-sonnet-4-5',
      request: expected,
    });
  });

  it('maps a streamed tools request', () => {
    const { requestedModel, request } = parseAnthropicMessages(fixtureBody('messages-request-stream-tools.json'));
    expect(requestedModel).toBe('claude-haiku-4-5');
    expect(request).toEqual({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is the weather in SF?' }] }],
      tools: [WEATHER_TOOL],
      maxOutputTokens: 1024,
      stream: true,
      includeUsage: true,
      shownReasoning: 'none',
    });
  });

  it('maps a non-streamed tools request', () => {
    const { request } = parseAnthropicMessages(fixtureBody('messages-request-tools.json'));
    expect(request.stream).toBe(false);
    expect(request.includeUsage).toBe(true);
    expect(request.tools).toEqual([WEATHER_TOOL]);
  });

  it('turns a tool_result block into a tool message carrying is_error', () => {
    const { request } = parseAnthropicMessages(fixtureBody('messages-request-tool-result-turn.json'));
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'What is the weather in SF?' }] },
      {
        role: 'assistant',
        content: [],
        toolCalls: [{ id: CALL_ID, name: 'get_weather', arguments: '{"location":"San Francisco, CA","units":"f"}' }],
      },
      {
        role: 'tool',
        toolCallId: CALL_ID,
        content: [{ type: 'text', text: "RuntimeError('Unexpected error, try again')" }],
        isError: true,
      },
    ]);
  });

  it('puts tool results before the text of their turn, whatever the block order', () => {
    const { request } = parseAnthropicMessages({
      model: 'claude-haiku-4-5',
      max_tokens: 10,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'here you go' },
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'one' },
            { type: 'tool_result', tool_use_id: 'toolu_2' },
          ],
        },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'tool', toolCallId: 'toolu_1', content: [{ type: 'text', text: 'one' }] },
      { role: 'tool', toolCallId: 'toolu_2', content: [] },
      { role: 'user', content: [{ type: 'text', text: 'here you go' }] },
    ]);
  });

  it('maps images, system blocks, tool_choice and unknown fields', () => {
    const { request } = parseAnthropicMessages({
      model: 'claude-haiku-4-5',
      max_tokens: 10,
      system: [
        { type: 'text', text: 'first', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'second' },
      ],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          ],
        },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature: 'sig' }, { type: 'text', text: 'A cat.' }] },
      ],
      tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
      top_k: 5,
      thinking: { type: 'enabled', budget_tokens: 2048 },
    });
    expect(request.messages).toEqual([
      {
        role: 'system',
        content: 'first\nsecond',
        parts: [
          { type: 'text', text: 'first', cacheControl: { type: 'ephemeral' } },
          { type: 'text', text: 'second' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=' },
          { type: 'image', url: 'https://example.com/cat.jpg' },
        ],
      },
      {
        role: 'assistant',
        reasoningBlocks: [{ type: 'thinking', text: 'hm', signature: 'sig' }],
        content: [{ type: 'text', text: 'A cat.' }],
      },
    ]);
    expect(request.toolChoice).toEqual({ name: 'get_weather' });
    expect(request.parallelToolCalls).toBe(false);
    expect(request.passthrough).toEqual({
      dialect: 'anthropic',
      fields: { top_k: 5, thinking: { type: 'enabled', budget_tokens: 2048 } },
    });
  });

  it('keeps cache markers, and thinking with its signature, as the canonical request', () => {
    expect(parseAnthropicMessages(fixtureBody('messages-request-cache-control-thinking.json'))).toEqual({
      requestedModel: 'claude-sonnet-4-5',
      request: CACHED_THINKING_TURN,
    });
  });

  it('hands an Anthropic target the same markers and thinking the caller sent', () => {
    const body = fixtureBody('messages-request-cache-control-thinking.json');
    const { request } = parseAnthropicMessages(body);
    const upstream = anthropicAdapter.buildRequest(request, { baseUrl: 'https://api.anthropic.com', routedModel: 'claude-sonnet-4-5' });
    expect(JSON.parse(upstream.body)).toEqual(body);
  });

  it('keeps markers on images, tool_use blocks and the texts inside a tool result, and joins unmarked system blocks', () => {
    const marker = { type: 'ephemeral', ttl: '1h' } as const;
    const { request } = parseAnthropicMessages({
      model: 'claude-haiku-4-5',
      max_tokens: 10,
      system: [{ type: 'text', text: 'one', cache_control: null }, { type: 'text', text: 'two' }],
      messages: [
        { role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' }, cache_control: marker }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read', input: {}, cache_control: marker }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'file', cache_control: marker }] }],
        },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'system', content: 'one\ntwo' },
      { role: 'user', content: [{ type: 'image', url: 'https://example.com/a.png', cacheControl: marker }] },
      { role: 'assistant', content: [], toolCalls: [{ id: 'toolu_1', name: 'read', arguments: '{}', cacheControl: marker }] },
      { role: 'tool', toolCallId: 'toolu_1', content: [{ type: 'text', text: 'file', cacheControl: marker }] },
    ]);
  });

  it.each([
    [{ type: 'any' }, 'required'],
    [{ type: 'none' }, 'none'],
    [{ type: 'auto' }, 'auto'],
  ])('maps tool_choice %j to %j', (choice, expected) => {
    const { request } = parseAnthropicMessages({
      model: 'm',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'hi' }],
      tool_choice: choice,
    });
    expect(request.toolChoice).toBe(expected);
    expect(request.parallelToolCalls).toBeUndefined();
  });

  describe('rejects invalid input with a 400 naming the field', () => {
    const valid = { model: 'claude-haiku-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };

    it.each([
      ['a missing max_tokens', { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, 'max_tokens'],
      ['a negative max_tokens', { ...valid, max_tokens: -1 }, 'max_tokens'],
      ['a tool role in messages', { ...valid, messages: [{ role: 'tool', content: 'be brief' }] }, 'messages[0].role'],
      ['no messages', { ...valid, messages: [] }, 'messages'],
      ['a temperature above 1', { ...valid, temperature: 1.5 }, 'temperature'],
      [
        'a document block',
        { ...valid, messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', data: 'x' } }] }] },
        'messages[0].content',
      ],
      ['a server tool', { ...valid, tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, 'tools[0].type'],
      [
        'a cache marker of an unknown type',
        { ...valid, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'persistent' } }] }] },
        'messages[0].content',
      ],
      [
        'a thinking block without its text',
        { ...valid, messages: [{ role: 'assistant', content: [{ type: 'thinking', signature: 'sig' }] }] },
        'messages[0].content',
      ],
      ['an unknown tool_choice', { ...valid, tool_choice: { type: 'sometimes' } }, 'tool_choice.type'],
    ])('%s', (_name, body, param) => {
      const error = rejection(body);
      expect(error.status).toBe(400);
      expect(error.param).toBe(param);
      expect(error.message).toContain(param);
    });

    it('says a missing field is required', () => {
      expect(rejection({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).message).toBe(
        'Invalid request: max_tokens: required.',
      );
    });

    it('rejects a body that is not an object', () => {
      expect(rejection([1, 2]).status).toBe(400);
    });
  });
});
