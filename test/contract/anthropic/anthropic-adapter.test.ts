import { describe, expect, it } from 'vitest';
import { ANTHROPIC_DEFAULT_MAX_TOKENS, anthropicAdapter } from '../../../src/providers/anthropic/adapter.js';
import {
  UpstreamFailureError,
  type ChatMessage,
  type ChatRequest,
  type UpstreamFailure,
  type ToolDefinition,
} from '../../../src/providers/spec.js';
import {
  collect,
  eventShape,
  framesOf,
  listFixtures,
  parseHttpFixture,
  randomChunkSizes,
  readFixture,
  replaySse,
  summarizeStream,
  parseWith,
} from '../../support/fixtures.js';
import { CACHED_THINKING_TURN, REDACTED_THINKING_DATA, THINKING_SIGNATURE } from './cached-thinking-turn.js';

const PROVIDER = 'anthropic';
const TARGET = { baseUrl: 'https://api.anthropic.com', routedModel: 'claude-haiku-4-5' };
const NOW_MS = Date.parse('2026-03-01T12:00:00Z');

type Json = Record<string, unknown>;

function fixtureJson(name: string): Json {
  return JSON.parse(readFixture(PROVIDER, name)) as Json;
}

function bodyOf(request: ChatRequest, target = TARGET): Json {
  return JSON.parse(anthropicAdapter.buildRequest(request, target).body) as Json;
}

function userText(text: string): ChatMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}

function minimalRequest(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return { messages: [userText('Hello')], stream: false, includeUsage: false, ...overrides };
}

function failureOf(action: () => unknown): UpstreamFailure {
  try {
    action();
  } catch (error) {
    if (error instanceof UpstreamFailureError) return error.error;
    throw error;
  }
  throw new Error('expected an UpstreamFailureError');
}

/** Anthropic echoes `caller` on tool_use blocks; a request built from canonical history has none. */
function withoutCaller(body: Json): Json {
  const messages = (body.messages as { role: string; content: unknown }[]).map((message) => ({
    ...message,
    content: Array.isArray(message.content)
      ? (message.content as Json[]).map(({ caller: _caller, ...block }) => block)
      : message.content,
  }));
  return { ...body, messages };
}

// ---------------------------------------------------------------------------------------------
// Fixture manifest: every file in __fixtures__ is named here, so a new fixture fails until used.
// The three `*thinking*` / `*cache-control*` fixtures are reconstructed from Anthropic's documented
// shapes (extended-thinking stream events, `cache_control` params), with hand-written ids,
// signatures and redacted data that no API would accept (test/contract/FIXTURES.md).

const SSE_FIXTURES = [
  'messages-stream-text.sse',
  'messages-stream-tool-use.sse',
  'messages-stream-text-then-tool-use.sse',
  'messages-stream-refusal.sse',
  'messages-stream-error-overloaded.sse',
  'messages-stream-thinking-tool-use.sse',
] as const;

const ERROR_FIXTURES: Record<string, { kind: UpstreamFailure['kind']; type: string; code?: string }> = {
  'errors/400-invalid-request-error.http': { kind: 'invalid_request', type: 'invalid_request_error' },
  'errors/400-prompt-too-long.http': { kind: 'context_length', type: 'invalid_request_error' },
  'errors/400-user-spend-limit.json': { kind: 'quota_exhausted', type: 'invalid_request_error' },
  'errors/401-authentication-error.json': { kind: 'credential', type: 'authentication_error' },
  'errors/403-permission-error.json': { kind: 'credential', type: 'permission_error' },
  'errors/404-not-found-error-model.json': { kind: 'not_found', type: 'not_found_error' },
  'errors/429-rate-limit-error.http': { kind: 'rate_limit', type: 'rate_limit_error' },
  'errors/429-spend-cap-enforced.json': {
    kind: 'quota_exhausted',
    type: 'rate_limit_error',
    code: 'enforced_spend_limit_reached',
  },
  'errors/500-api-error.json': { kind: 'server_error', type: 'api_error' },
  'errors/529-overloaded-error.http': { kind: 'server_error', type: 'overloaded_error' },
};

const SDK_ERROR_TYPES: Record<string, { kind: UpstreamFailure['kind']; type: string }> = {
  '402': { kind: 'quota_exhausted', type: 'billing_error' },
  '413': { kind: 'context_length', type: 'request_too_large' },
  '504': { kind: 'server_error', type: 'timeout_error' },
};

const OTHER_FIXTURES = [
  'errors/other-error-types-from-sdk.json',
  'messages-request-cache-control-thinking.json',
  'messages-request-full-shape.json',
  'messages-request-stream-tools.json',
  'messages-request-tool-result-turn.json',
  'messages-request-tools.json',
  'messages-response-refusal.json',
  'messages-response-text.json',
  'messages-response-thinking-tool-use.json',
  'messages-response-tool-use.json',
  'messages-stream-error-observed-payloads.txt',
  'response-headers-and-body.http',
  'response-headers-ratelimit.http',
];

describe('Anthropic fixtures', () => {
  it('are all exercised by this file', () => {
    const named = [...SSE_FIXTURES, ...Object.keys(ERROR_FIXTURES), ...OTHER_FIXTURES].sort();
    expect(listFixtures(PROVIDER)).toEqual(named);
  });
});

// ---------------------------------------------------------------------------------------------

const recordedTools = fixtureJson('messages-request-tools.json');
const weatherTool: ToolDefinition = {
  name: 'get_weather',
  description: 'Lookup the weather for a given city in either celsius or fahrenheit',
  parameters: (recordedTools.tools as { input_schema: Record<string, unknown> }[])[0]!.input_schema,
};

describe('Anthropic buildRequest', () => {
  const askWeather: ChatRequest = {
    messages: [userText('What is the weather in SF?')],
    tools: [weatherTool],
    maxOutputTokens: 1024,
    stream: false,
    includeUsage: false,
  };

  it('reproduces the recorded tools request', () => {
    const upstream = anthropicAdapter.buildRequest(askWeather, TARGET);
    expect(upstream.url).toBe('https://api.anthropic.com/v1/messages');
    expect(upstream.method).toBe('POST');
    expect(upstream.headers).toEqual({ 'content-type': 'application/json', 'anthropic-version': '2023-06-01' });
    expect(JSON.parse(upstream.body)).toEqual(recordedTools);
  });

  it('reproduces the recorded streaming request', () => {
    expect(bodyOf({ ...askWeather, stream: true })).toEqual(fixtureJson('messages-request-stream-tools.json'));
  });

  it('reproduces the recorded tool-result turn, with an erroring tool result', () => {
    const request: ChatRequest = {
      ...askWeather,
      messages: [
        userText('What is the weather in SF?'),
        {
          role: 'assistant',
          content: [],
          toolCalls: [
            { id: 'toolu_01A9HHF5Ezy3oBrKmSgfASm9', name: 'get_weather', arguments: '{"location":"San Francisco, CA","units":"f"}' },
          ],
        },
        {
          role: 'tool',
          toolCallId: 'toolu_01A9HHF5Ezy3oBrKmSgfASm9',
          content: [{ type: 'text', text: "RuntimeError('Unexpected error, try again')" }],
          isError: true,
        },
      ],
    };
    expect(bodyOf(request)).toEqual(withoutCaller(fixtureJson('messages-request-tool-result-turn.json')));
  });

  it('reproduces the full request shape: system, merged turns, tool choice, sampling, metadata', () => {
    const request: ChatRequest = {
      messages: [
        { role: 'system', content: 'You are a concise weather assistant.' },
        userText('What is the weather in SF?'),
        {
          role: 'assistant',
          content: [{ type: 'text', text: "I'll look that up." }],
          toolCalls: [
            { id: 'toolu_01A9HHF5Ezy3oBrKmSgfASm9', name: 'get_weather', arguments: '{"location": "San Francisco, CA", "units": "f"}' },
          ],
        },
        { role: 'tool', toolCallId: 'toolu_01A9HHF5Ezy3oBrKmSgfASm9', content: [{ type: 'text', text: 'The weather is 73f' }] },
        userText('Also, should I bring a jacket?'),
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
      stop: ['\n\nHuman:'],
      temperature: 0.7,
      topP: 0.9,
      user: 'user-1234',
      maxOutputTokens: 1024,
      stream: true,
      includeUsage: true,
    };
    const expected = fixtureJson('messages-request-full-shape.json');
    // The recording spells a one-text tool result as a block list; the string form is equivalent.
    const lastTurn = (expected.messages as { content: Json[] }[])[2]!;
    lastTurn.content[0] = { ...lastTurn.content[0], content: 'The weather is 73f' };
    expect(bodyOf({ ...request })).toEqual({ ...expected, model: TARGET.routedModel });
  });

  it('sends the default max_tokens when the caller gave none', () => {
    expect(ANTHROPIC_DEFAULT_MAX_TOKENS).toBe(4096);
    expect(bodyOf(minimalRequest()).max_tokens).toBe(4096);
    expect(bodyOf(minimalRequest()).messages).toEqual([{ role: 'user', content: 'Hello' }]);
  });

  it('hoists every system and developer message into system blocks', () => {
    const body = bodyOf(
      minimalRequest({
        messages: [{ role: 'system', content: 'Rule one.' }, userText('Hi'), { role: 'developer', content: 'Rule two.' }],
      }),
    );
    expect(body.system).toEqual([
      { type: 'text', text: 'Rule one.' },
      { type: 'text', text: 'Rule two.' },
    ]);
    expect(body.messages).toEqual([{ role: 'user', content: 'Hi' }]);
  });

  it('merges consecutive same-role messages and puts tool results first in a user turn', () => {
    const body = bodyOf(
      minimalRequest({
        messages: [
          userText('Compare two cities.'),
          {
            role: 'assistant',
            content: [],
            toolCalls: [
              { id: 'toolu_a', name: 'get_weather', arguments: '{"location":"Paris"}' },
              { id: 'toolu_b', name: 'get_weather', arguments: '' },
            ],
          },
          userText('Hurry, please.'),
          { role: 'tool', toolCallId: 'toolu_a', content: [{ type: 'text', text: '18C' }] },
          { role: 'tool', toolCallId: 'toolu_b', content: [] },
        ],
      }),
    );
    expect(body.messages).toEqual([
      { role: 'user', content: 'Compare two cities.' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { location: 'Paris' } },
          { type: 'tool_use', id: 'toolu_b', name: 'get_weather', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: '18C' },
          { type: 'tool_result', tool_use_id: 'toolu_b' },
          { type: 'text', text: 'Hurry, please.' },
        ],
      },
    ]);
  });

  it('maps data: URLs to base64 image sources and http URLs to url sources', () => {
    const body = bodyOf(
      minimalRequest({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=' },
              { type: 'image', url: 'https://example.com/cat.jpg', detail: 'high' },
              { type: 'text', text: 'Same animal?' },
            ],
          },
        ],
      }),
    );
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          { type: 'text', text: 'Same animal?' },
        ],
      },
    ]);
    const notBase64 = minimalRequest({ messages: [{ role: 'user', content: [{ type: 'image', url: 'data:image/svg+xml,<svg/>' }] }] });
    expect(failureOf(() => anthropicAdapter.buildRequest(notBase64, TARGET)).kind).toBe('invalid_request');
  });

  it('refuses tool arguments that are not a JSON object, naming the tool call', () => {
    const request = minimalRequest({
      messages: [
        userText('Go'),
        { role: 'assistant', content: [], toolCalls: [{ id: 'call_9', name: 'search', arguments: '{"query": "unterminated' }] },
      ],
    });
    expect(failureOf(() => anthropicAdapter.buildRequest(request, TARGET))).toEqual({
      kind: 'invalid_request',
      message: 'Tool call call_9 (search) has arguments that are not a JSON object; Anthropic requires an object.',
    });
    const arrayArguments = minimalRequest({
      messages: [userText('Go'), { role: 'assistant', content: [], toolCalls: [{ id: 'call_8', name: 'sum', arguments: '[1,2]' }] }],
    });
    expect(failureOf(() => anthropicAdapter.buildRequest(arrayArguments, TARGET)).kind).toBe('invalid_request');
  });

  it.each([
    [{ toolChoice: 'none' as const }, { type: 'none' }],
    [{ toolChoice: 'required' as const }, { type: 'any' }],
    [{ toolChoice: { name: 'get_weather' } }, { type: 'tool', name: 'get_weather' }],
    [{ parallelToolCalls: false }, { type: 'auto', disable_parallel_tool_use: true }],
    [{ toolChoice: 'required' as const, parallelToolCalls: false }, { type: 'any', disable_parallel_tool_use: true }],
    [{ parallelToolCalls: true }, undefined],
    [{}, undefined],
  ])('maps tool choice %o to %o', (choice, expected) => {
    expect(bodyOf(minimalRequest({ tools: [weatherTool], ...choice })).tool_choice).toEqual(expected);
  });

  it('defaults a tool without parameters to an empty object schema and leaves strict out', () => {
    expect(bodyOf(minimalRequest({ tools: [{ name: 'ping', strict: true }] })).tools).toEqual([
      { name: 'ping', input_schema: { type: 'object', properties: {} } },
    ]);
  });

  it('sends a JSON schema response format as structured output, and nothing for json_object', () => {
    const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'], additionalProperties: false };
    expect(bodyOf(minimalRequest({ responseFormat: { type: 'json_schema', name: 'math', schema } })).output_config).toEqual({
      format: { type: 'json_schema', schema },
    });
    expect(bodyOf(minimalRequest({ responseFormat: { type: 'json_object' } }))).not.toHaveProperty('output_config');
  });

  it('sends cache markers and signed thinking back exactly as the caller sent them', () => {
    expect(bodyOf(CACHED_THINKING_TURN)).toEqual({
      ...fixtureJson('messages-request-cache-control-thinking.json'),
      model: TARGET.routedModel,
    });
  });

  it('leaves out thinking without a signature, which Anthropic would refuse, and keeps thinking first', () => {
    const body = bodyOf(
      minimalRequest({
        messages: [
          userText('Go'),
          { role: 'assistant', reasoningBlocks: [{ type: 'thinking', text: 'from a provider that does not sign' }], content: [{ type: 'text', text: 'One.' }] },
          {
            role: 'assistant',
            reasoningBlocks: [
              { type: 'thinking', text: '', signature: 'sig-omitted-text' },
              { type: 'redacted', data: 'opaque' },
            ],
            content: [],
            toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{}', cacheControl: { type: 'ephemeral' } }],
          },
        ],
      }),
    );
    expect(body.messages).toEqual([
      { role: 'user', content: 'Go' },
      {
        role: 'assistant',
        content: [
          // The second message's reasoning leads the merged turn; its empty (omitted) text is kept.
          { type: 'thinking', thinking: '', signature: 'sig-omitted-text' },
          { type: 'redacted_thinking', data: 'opaque' },
          { type: 'text', text: 'One.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {}, cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
  });

  it('keeps a marked lone text, system text or tool result text as a block, to carry its marker', () => {
    const marker = { type: 'ephemeral' as const, ttl: '5m' as const };
    const body = bodyOf(
      minimalRequest({
        messages: [
          { role: 'system', content: 'Rules.', parts: [{ type: 'text', text: 'Rules.', cacheControl: marker }] },
          { role: 'user', content: [{ type: 'text', text: 'Hi', cacheControl: marker }] },
          { role: 'assistant', content: [], toolCalls: [{ id: 'toolu_1', name: 'read', arguments: '' }] },
          { role: 'tool', toolCallId: 'toolu_1', content: [{ type: 'text', text: 'file', cacheControl: marker }] },
        ],
      }),
    );
    expect(body.system).toEqual([{ type: 'text', text: 'Rules.', cache_control: marker }]);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: marker }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read', input: {} }] },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'file', cache_control: marker }] }],
      },
    ]);
  });

  it('merges Anthropic passthrough fields without overriding, and ignores OpenAI ones', () => {
    const body = bodyOf(
      minimalRequest({ temperature: 0.3, passthrough: { dialect: 'anthropic', fields: { top_k: 40, temperature: 1 } } }),
    );
    expect(body).toMatchObject({ top_k: 40, temperature: 0.3 });
    expect(bodyOf(minimalRequest({ passthrough: { dialect: 'openai', fields: { seed: 1 } } }))).not.toHaveProperty('seed');
    expect(bodyOf(minimalRequest())).not.toHaveProperty('stream');
  });
});

// ---------------------------------------------------------------------------------------------

describe('Anthropic parseResponse', () => {
  it('parses a tool_use answer', () => {
    expect(anthropicAdapter.parseResponse(fixtureJson('messages-response-tool-use.json'))).toEqual({
      id: 'msg_01RMQBcKf2dxTq6qfi31BBTz',
      responseModel: 'claude-haiku-4-5-20251001',
      text: '',
      reasoning: undefined,
      toolCalls: [
        { id: 'toolu_01A9HHF5Ezy3oBrKmSgfASm9', name: 'get_weather', arguments: '{"location":"San Francisco, CA","units":"f"}' },
      ],
      finishReason: 'tool_calls',
      providerFinishReason: 'tool_use',
      stopSequence: undefined,
      usage: { inputTokens: 656, outputTokens: 74, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: undefined },
    });
  });

  it('parses a text answer', () => {
    const result = anthropicAdapter.parseResponse(fixtureJson('messages-response-text.json'));
    expect(result).toMatchObject({
      id: 'msg_01GJyhkguJrrqMbZNzEybYFL',
      finishReason: 'stop',
      providerFinishReason: 'end_turn',
      toolCalls: [],
      usage: { inputTokens: 760, outputTokens: 63, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(result.text).toBe(
      "I apologize, but I'm getting an error when trying to fetch the weather for San Francisco. This appears to be a temporary issue with the weather service. Could you try again in a moment, or let me know if you'd like me to attempt to retrieve the weather for a different location?",
    );
  });

  it('parses a refusal as content_filter with no content', () => {
    expect(anthropicAdapter.parseResponse(fixtureJson('messages-response-refusal.json'))).toMatchObject({
      id: 'msg_01RefusalExampleAbcdefghijk',
      responseModel: 'claude-fable-5',
      text: '',
      finishReason: 'content_filter',
      providerFinishReason: 'refusal',
      usage: { inputTokens: 18, outputTokens: 5 },
    });
  });

  it('parses the body of a recorded HTTP response', () => {
    const recorded = parseHttpFixture(readFixture(PROVIDER, 'response-headers-and-body.http'));
    expect(recorded.status).toBe(200);
    expect(recorded.headers['request-id']).toBe('req_011CSLsW7mFqvHHnzrKdKjAE');
    expect(anthropicAdapter.parseResponse(JSON.parse(recorded.body))).toMatchObject({
      id: 'msg_01QgNtCXZKCJgpWHW3NEwmdP',
      responseModel: 'claude-3-5-sonnet-20240620',
      text: "Hello! How can I assist you today? Is there anything specific you'd like to know or discuss?",
      finishReason: 'stop',
      usage: { inputTokens: 16, outputTokens: 24 },
    });
  });

  it('adds cache reads and writes to input tokens, and reads thinking and stop sequences', () => {
    const result = anthropicAdapter.parseResponse({
      id: 'msg_x',
      type: 'message',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'thinking', thinking: 'The user wants a list.', signature: 'sig' },
        { type: 'text', text: 'One, ' },
        { type: 'text', text: 'two' },
      ],
      stop_reason: 'stop_sequence',
      stop_sequence: 'three',
      usage: {
        input_tokens: 10,
        cache_read_input_tokens: 1000,
        cache_creation_input_tokens: 200,
        output_tokens: 50,
        output_tokens_details: { thinking_tokens: 30 },
      },
    });
    expect(result).toMatchObject({
      text: 'One, two',
      reasoning: 'The user wants a list.',
      finishReason: 'stop',
      providerFinishReason: 'stop_sequence',
      stopSequence: 'three',
      usage: { inputTokens: 1210, outputTokens: 50, cacheReadTokens: 1000, cacheWriteTokens: 200, reasoningTokens: 30 },
    });
  });

  it('parses signed and redacted thinking into reasoning blocks, in order, and the thinking text', () => {
    expect(anthropicAdapter.parseResponse(fixtureJson('messages-response-thinking-tool-use.json'))).toEqual({
      id: 'msg_01ThinkingResponseReconstr',
      responseModel: 'claude-sonnet-4-5-20250929',
      text: 'Let me check the weather in Paris.',
      reasoning: 'The user wants the weather in Paris. I should call get_weather with the city.',
      reasoningBlocks: [
        {
          type: 'thinking',
          text: 'The user wants the weather in Paris. I should call get_weather with the city.',
          signature: THINKING_SIGNATURE,
        },
        { type: 'redacted', data: REDACTED_THINKING_DATA },
      ],
      toolCalls: [{ id: 'toolu_01ThinkingToolUseReconstr', name: 'get_weather', arguments: '{"location":"Paris"}' }],
      finishReason: 'tool_calls',
      providerFinishReason: 'tool_use',
      stopSequence: undefined,
      usage: { inputTokens: 2060, outputTokens: 96, cacheReadTokens: 2048, cacheWriteTokens: 0, reasoningTokens: undefined },
    });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
  ])('maps stop_reason %s to %s', (stopReason, finishReason) => {
    const body = { id: 'm', model: 'c', content: [], stop_reason: stopReason };
    expect(anthropicAdapter.parseResponse(body).finishReason).toBe(finishReason);
  });

  it('throws the classified error for an error body, and server_error for a body of another shape', () => {
    expect(failureOf(() => anthropicAdapter.parseResponse(fixtureJson('errors/500-api-error.json')))).toEqual({
      kind: 'server_error',
      type: 'api_error',
      message: 'Internal server error',
      status: undefined,
      code: undefined,
    });
    expect(failureOf(() => anthropicAdapter.parseResponse({ id: 'm' }))).toEqual({
      kind: 'server_error',
      message: 'Unexpected Messages API response: the response has no content array.',
    });
  });
});

// ---------------------------------------------------------------------------------------------

interface StreamExpectation {
  shape: string[];
  start: { id: string; responseModel: string };
  text: string;
  reasoning?: string;
  toolCalls?: { index: number; id: string; name: string; arguments: string }[];
  finish?: { reason: string; providerReason: string; stopSequence?: string };
  usage: Record<string, number>;
  errors?: Partial<UpstreamFailure>[];
}

const NO_CACHE = { cacheReadTokens: 0, cacheWriteTokens: 0 };

const STREAM_EXPECTATIONS: Record<(typeof SSE_FIXTURES)[number], StreamExpectation> = {
  'messages-stream-text.sse': {
    shape: ['response-start', 'usage', 'text-delta', 'usage', 'finish'],
    start: { id: 'msg_013nnniYDrJDocdy5nrMU7cH', responseModel: 'claude-sonnet-4-5-20250929' },
    text: '[12345,67890]',
    finish: { reason: 'stop', providerReason: 'end_turn' },
    usage: { inputTokens: 135, outputTokens: 10, ...NO_CACHE },
  },
  'messages-stream-tool-use.sse': {
    shape: ['response-start', 'usage', 'tool-call-start', 'tool-call-delta', 'tool-call-end', 'usage', 'finish'],
    start: { id: 'msg_01AusY9WEbCaj3N7Tv5J4YjH', responseModel: 'claude-haiku-4-5-20251001' },
    text: '',
    toolCalls: [
      {
        index: 0,
        id: 'toolu_018acGYLtfR52q9yDbWaEdQZ',
        name: 'get_weather',
        arguments: '{"location": "San Francisco, CA", "units": "f"}',
      },
    ],
    finish: { reason: 'tool_calls', providerReason: 'tool_use' },
    usage: { inputTokens: 656, outputTokens: 74, ...NO_CACHE },
  },
  // The recording ends without a blank line after message_stop, so the decoder drops that
  // incomplete event; everything before it is complete.
  'messages-stream-text-then-tool-use.sse': {
    shape: ['response-start', 'usage', 'text-delta', 'tool-call-start', 'tool-call-delta', 'tool-call-end', 'usage', 'finish'],
    start: { id: 'msg_019Q1hrJbZG26Fb9BQhrkHEr', responseModel: 'claude-sonnet-4-20250514' },
    text: "I'll check the current weather in Paris for you.",
    // Anthropic numbers this block 1; canonical tool indexes count tool calls only.
    toolCalls: [{ index: 0, id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', arguments: '{"location": "Paris"}' }],
    finish: { reason: 'tool_calls', providerReason: 'tool_use' },
    // message_delta reports only output tokens here; the input counts carry over from message_start.
    usage: { inputTokens: 377, outputTokens: 65, ...NO_CACHE },
  },
  'messages-stream-refusal.sse': {
    shape: ['response-start', 'usage', 'finish'],
    start: { id: 'msg_01RefusalStreamAbcdefghijk', responseModel: 'claude-fable-5' },
    text: '',
    finish: { reason: 'content_filter', providerReason: 'refusal' },
    usage: { inputTokens: 18, outputTokens: 5, ...NO_CACHE },
  },
  'messages-stream-error-overloaded.sse': {
    shape: ['response-start', 'usage', 'text-delta', 'provider-error'],
    start: { id: 'msg_...', responseModel: 'claude-...' },
    text: 'Hello',
    usage: { inputTokens: 25, outputTokens: 1 },
    errors: [{ kind: 'server_error', type: 'overloaded_error', message: 'Overloaded', status: undefined }],
  },
  'messages-stream-thinking-tool-use.sse': {
    shape: [
      'response-start', 'usage', 'reasoning-start', 'reasoning-delta', 'reasoning-signature', 'reasoning-redacted',
      'text-delta', 'tool-call-start', 'tool-call-delta', 'tool-call-end', 'usage', 'finish',
    ],
    start: { id: 'msg_01ThinkingStreamReconstruct', responseModel: 'claude-sonnet-4-5-20250929' },
    text: 'Let me check the weather in Paris.',
    reasoning: 'The user wants the weather in Paris. I should call get_weather with the city.',
    toolCalls: [{ index: 0, id: 'toolu_01ThinkingToolUseReconstr', name: 'get_weather', arguments: '{"location": "Paris"}' }],
    finish: { reason: 'tool_calls', providerReason: 'tool_use' },
    usage: { inputTokens: 2060, outputTokens: 96, cacheReadTokens: 2048, cacheWriteTokens: 0 },
  },
};

describe('Anthropic parseStream', () => {
  for (const name of SSE_FIXTURES) {
    const expected = STREAM_EXPECTATIONS[name];

    it(`parses ${name}`, async () => {
      const events = await replaySse(readFixture(PROVIDER, name), anthropicAdapter);
      expect(eventShape(events)).toEqual(expected.shape);
      const summary = summarizeStream(events);
      expect(summary.start).toEqual(expected.start);
      expect(summary.text).toBe(expected.text);
      expect(summary.reasoning).toBe(expected.reasoning ?? '');
      expect(summary.toolCalls).toEqual((expected.toolCalls ?? []).map((call) => ({ ...call, ended: true })));
      expect(summary.finish).toEqual(expected.finish);
      expect(summary.usage).toEqual(expected.usage);
      expect(summary.errors).toEqual(expected.errors ?? []);
      expect(summary.malformed).toEqual([]);
      for (const call of summary.toolCalls) expect(() => JSON.parse(call.arguments) as unknown).not.toThrow();
    });

    it(`parses ${name} identically when the bytes arrive in random pieces`, async () => {
      const text = readFixture(PROVIDER, name);
      const whole = await replaySse(text, anthropicAdapter);
      for (const seed of [3, 11, 4096]) {
        expect(await replaySse(text, anthropicAdapter, randomChunkSizes(seed))).toEqual(whole);
      }
      expect(await replaySse(text, anthropicAdapter, [1])).toEqual(whole);
    });
  }

  it('reports the start usage as soon as the message starts', async () => {
    const events = await replaySse(readFixture(PROVIDER, 'messages-stream-tool-use.sse'), anthropicAdapter);
    expect(events.slice(0, 2)).toEqual([
      { type: 'response-start', id: 'msg_01AusY9WEbCaj3N7Tv5J4YjH', responseModel: 'claude-haiku-4-5-20251001' },
      { type: 'usage', usage: { inputTokens: 656, outputTokens: 26, ...NO_CACHE, reasoningTokens: undefined } },
    ]);
  });

  it('carries the thinking signature and the redacted block at their places in the stream', async () => {
    const events = await replaySse(readFixture(PROVIDER, 'messages-stream-thinking-tool-use.sse'), anthropicAdapter);
    const reasoning = events.filter((event) => event.type.startsWith('reasoning-') && event.type !== 'reasoning-delta');
    expect(reasoning).toEqual([
      { type: 'reasoning-start' },
      { type: 'reasoning-signature', signature: THINKING_SIGNATURE },
      { type: 'reasoning-redacted', data: REDACTED_THINKING_DATA },
    ]);
  });

  it('reads a signature that comes with the thinking block itself (thinking text omitted)', async () => {
    const events = await collect(
      parseWith(anthropicAdapter)(
        framesOf({
          event: 'content_block_start',
          data: '{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":"sig-at-start"}}',
        }),
      ),
    );
    expect(events).toEqual([{ type: 'reasoning-start' }, { type: 'reasoning-signature', signature: 'sig-at-start' }]);
  });

  it('classifies every observed in-stream error payload and stops there', async () => {
    const payloads = readFixture(PROVIDER, 'messages-stream-error-observed-payloads.txt')
      .split('\n')
      .filter((line) => line.startsWith('{'));
    expect(payloads).toHaveLength(3);
    for (const payload of payloads) {
      const sse = `event: error\ndata: ${payload}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n`;
      const events = await replaySse(sse, anthropicAdapter, randomChunkSizes(payload.length));
      expect(events).toEqual([
        {
          type: 'provider-error',
          error: { kind: 'server_error', type: 'overloaded_error', message: 'Overloaded', status: undefined, code: undefined },
        },
      ]);
    }
  });

  it('ends with a server_error when an error event cannot be read, or has a type it does not know', async () => {
    const unreadable = await collect(parseWith(anthropicAdapter)(framesOf({ event: 'error', data: 'upstream <b>reset</b>' }, { data: '{}' })));
    expect(unreadable).toEqual([{ type: 'provider-error', error: { kind: 'server_error', message: 'upstream reset' } }]);
    const unknownType = await collect(
      parseWith(anthropicAdapter)(framesOf({ event: 'error', data: '{"type":"error","error":{"type":"constructor","message":"?"}}' })),
    );
    expect(unknownType.map((event) => event.type === 'provider-error' && event.error.kind)).toEqual(['server_error']);
  });

  it('streams thinking, skips empty deltas and server-tool blocks, and reports malformed data', async () => {
    const frame = (data: object): { event: string; data: string } => ({ event: (data as { type: string }).type, data: JSON.stringify(data) });
    const events = await collect(
      parseWith(anthropicAdapter)(
        framesOf(
          frame({ type: 'message_start', message: { id: 'msg_t', model: 'claude-x', usage: { input_tokens: 5, cache_read_input_tokens: 100, output_tokens: 1 } } }),
          frame({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } }),
          frame({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hmm.' } }),
          frame({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'abc' } }),
          frame({ type: 'content_block_stop', index: 0 }),
          frame({ type: 'content_block_start', index: 1, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search' } }),
          frame({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"q":1}' } }),
          frame({ type: 'content_block_stop', index: 1 }),
          { event: 'content_block_delta', data: '{"type":"content_block_delta",' },
          frame({ type: 'content_block_start', index: 2, content_block: { type: 'text', text: 'Hi' } }),
          frame({ type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: '' } }),
          frame({ type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: ' there' } }),
          frame({ type: 'message_delta', delta: { stop_reason: 'stop_sequence', stop_sequence: 'END' }, usage: { output_tokens: 9 } }),
          frame({ type: 'message_stop' }),
          frame({ type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'after stop' } }),
        ),
      ),
    );
    const summary = summarizeStream(events);
    expect(summary.reasoning).toBe('Hmm.');
    expect(summary.text).toBe('Hi there');
    expect(summary.toolCalls).toEqual([]);
    expect(summary.malformed).toEqual(['{"type":"content_block_delta",']);
    expect(summary.finish).toEqual({ reason: 'stop', providerReason: 'stop_sequence', stopSequence: 'END' });
    expect(summary.usage).toEqual({ inputTokens: 105, outputTokens: 9, cacheReadTokens: 100 });
  });
});

// ---------------------------------------------------------------------------------------------

function errorInput(name: string): { status: number; headers: Record<string, string | string[]>; body: string } {
  const text = readFixture(PROVIDER, name);
  if (name.endsWith('.http')) return parseHttpFixture(text);
  return { status: Number(name.slice('errors/'.length, 'errors/'.length + 3)), headers: {}, body: text };
}

describe('Anthropic parseError', () => {
  for (const [name, expected] of Object.entries(ERROR_FIXTURES)) {
    it(`classifies ${name}`, () => {
      const { status, headers, body } = errorInput(name);
      const error = anthropicAdapter.parseError(status, headers, body, NOW_MS);
      expect(error).toMatchObject({ ...expected, status });
      expect(error.retryAfterMs).toBeUndefined();
      expect(error.message).toBe((JSON.parse(body) as { error: { message: string } }).error.message);
    });
  }

  for (const [status, expected] of Object.entries(SDK_ERROR_TYPES)) {
    it(`classifies the documented ${expected.type} (${status})`, () => {
      const body = JSON.stringify(fixtureJson('errors/other-error-types-from-sdk.json')[status]);
      expect(anthropicAdapter.parseError(Number(status), {}, body, NOW_MS)).toMatchObject({ ...expected, status: Number(status) });
    });
  }

  it('keeps a rate limit with a retry hint a rate limit, even if it mentions usage limits', () => {
    const body = JSON.stringify({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'You have reached your API usage limits for this minute.' },
    });
    expect(anthropicAdapter.parseError(429, { 'retry-after': '12' }, body, NOW_MS)).toMatchObject({
      kind: 'rate_limit',
      retryAfterMs: 12_000,
    });
    expect(anthropicAdapter.parseError(429, {}, body, NOW_MS).kind).toBe('quota_exhausted');
  });

  it('classifies an input-plus-max_tokens overflow as context_length', () => {
    const body = JSON.stringify({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again',
      },
    });
    expect(anthropicAdapter.parseError(400, {}, body, NOW_MS).kind).toBe('context_length');
  });

  it('classifies bodies without an Anthropic error type by status', () => {
    expect(anthropicAdapter.parseError(413, {}, '<html><title>413 Request Entity Too Large</title></html>', NOW_MS)).toEqual({
      kind: 'context_length',
      status: 413,
      message: '413 Request Entity Too Large',
    });
    expect(anthropicAdapter.parseError(529, {}, '', NOW_MS).kind).toBe('server_error');
    expect(anthropicAdapter.parseError(502, {}, 'upstream connect error', NOW_MS).kind).toBe('server_error');
    expect(anthropicAdapter.parseError(422, {}, '{}', NOW_MS).kind).toBe('invalid_request');
  });

  it('reads retry-after as seconds or an HTTP date, and ignores rate-limit reset timestamps', () => {
    const { status, body } = errorInput('errors/429-rate-limit-error.http');
    expect(anthropicAdapter.parseError(status, { 'retry-after': '7' }, body, NOW_MS).retryAfterMs).toBe(7000);
    const inOneMinute = new Date(NOW_MS + 60_000).toUTCString();
    expect(anthropicAdapter.parseError(status, { 'retry-after': inOneMinute }, body, NOW_MS).retryAfterMs).toBe(60_000);

    const { headers: rateLimitHeaders } = parseHttpFixture(readFixture(PROVIDER, 'response-headers-ratelimit.http'));
    expect(rateLimitHeaders['anthropic-ratelimit-tokens-reset']).toBe('2026-02-25T20:02:36Z');
    const error = anthropicAdapter.parseError(status, rateLimitHeaders, body, NOW_MS);
    expect(error.kind).toBe('rate_limit');
    expect(error).not.toHaveProperty('retryAfterMs');
  });
});
