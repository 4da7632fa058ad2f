import { describe, expect, it } from 'vitest';
import { createOpenAiAdapter, openAiAdapter } from '../../../src/providers/openai/adapter.js';
import { UpstreamFailureError, type ChatRequest, type UpstreamFailure } from '../../../src/providers/spec.js';
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

const PROVIDER = 'openai';
const TARGET = { baseUrl: 'https://api.openai.com/v1', routedModel: 'gpt-4o-2024-08-06' };
const NOW_MS = Date.parse('2026-03-01T12:00:00Z');
const plainAdapter = createOpenAiAdapter();

function fixtureJson(name: string): unknown {
  return JSON.parse(readFixture(PROVIDER, name));
}

function bodyOf(request: ChatRequest, adapter = plainAdapter, target = TARGET): Record<string, unknown> {
  return JSON.parse(adapter.buildRequest(request, target).body) as Record<string, unknown>;
}

function userText(text: string): ChatRequest['messages'][number] {
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

// ---------------------------------------------------------------------------------------------
// Fixture manifest: every file in __fixtures__ is named here, so a new fixture fails until used.

const SSE_FIXTURES = [
  'chat-stream-text.sse',
  'chat-stream-text-2026-trimmed.sse',
  'chat-stream-tool-call.sse',
  'chat-stream-parallel-tool-calls.sse',
  'chat-stream-finish-length.sse',
  'chat-stream-refusal.sse',
  'chat-stream-error-midstream.sse',
] as const;

const ERROR_FIXTURES: Record<string, { kind: UpstreamFailure['kind']; code?: string; type?: string }> = {
  'errors/400-azure-content-filter.json': { kind: 'moderation', code: 'content_filter' },
  'errors/400-content-policy-violation-images.json': { kind: 'moderation', code: 'content_policy_violation' },
  'errors/400-context-length-exceeded-compact.json': { kind: 'context_length', code: 'context_length_exceeded' },
  'errors/400-context-length-exceeded.json': { kind: 'context_length', code: 'context_length_exceeded' },
  'errors/400-invalid-prompt-safety.json': { kind: 'moderation', code: 'invalid_prompt' },
  'errors/400-invalid-request-unsupported-parameter.json': { kind: 'invalid_request', code: 'unsupported_parameter' },
  'errors/401-invalid-api-key.json': { kind: 'credential', code: 'invalid_api_key' },
  'errors/403-unsupported-country.json': { kind: 'credential', type: 'request_forbidden' },
  'errors/404-model-not-found.json': { kind: 'not_found', code: 'model_not_found' },
  'errors/429-insufficient-quota.json': { kind: 'quota_exhausted', code: 'insufficient_quota' },
  'errors/429-rate-limit-exceeded.json': { kind: 'rate_limit', code: 'rate_limit_exceeded', type: 'tokens' },
  'errors/500-server-error.json': { kind: 'server_error', type: 'server_error' },
  'errors/503-model-overloaded.json': { kind: 'server_error', type: 'server_error' },
  'errors/503-server-is-overloaded-2026.json': { kind: 'server_error', code: 'server_is_overloaded' },
};

const OTHER_FIXTURES = [
  'chat-request-tools.json',
  'chat-response-text.json',
  'chat-response-parallel-tool-calls.json',
  'response-headers-and-body.http',
  // Prose about rate-limit headers (their values are durations, not retry hints); no wire data.
  'ratelimit-headers.md',
];

describe('OpenAI fixtures', () => {
  it('are all exercised by this file', () => {
    const named = [...SSE_FIXTURES, ...Object.keys(ERROR_FIXTURES), ...OTHER_FIXTURES].sort();
    expect(listFixtures(PROVIDER)).toEqual(named);
  });
});

// ---------------------------------------------------------------------------------------------

describe('OpenAI buildRequest', () => {
  const recorded = fixtureJson('chat-request-tools.json') as {
    tools: { function: { parameters: Record<string, unknown> } }[];
  };
  const weatherConversation: ChatRequest = {
    messages: [
      { role: 'system', content: 'You are a concise weather assistant.' },
      userText("What's the weather like in Edinburgh?"),
      {
        role: 'assistant',
        content: [],
        toolCalls: [
          {
            id: 'call_c91SqDXlYFuETYv8mUHzz6pp',
            name: 'GetWeatherArgs',
            arguments: '{"city":"Edinburgh","country":"UK","units":"c"}',
          },
        ],
      },
      {
        role: 'tool',
        toolCallId: 'call_c91SqDXlYFuETYv8mUHzz6pp',
        content: [{ type: 'text', text: '{"temp_c": 11, "condition": "rain"}' }],
      },
    ],
    tools: [
      {
        name: 'GetWeatherArgs',
        description: 'Get the current weather for a city',
        parameters: recorded.tools[0]!.function.parameters,
        strict: true,
      },
    ],
    toolChoice: 'auto',
    parallelToolCalls: true,
    maxOutputTokens: 1024,
    temperature: 0.7,
    stop: ['\n\n\n'],
    stream: true,
    includeUsage: false,
  };

  it('reproduces the recorded tool-conversation request for api.openai.com', () => {
    const upstream = openAiAdapter.buildRequest(weatherConversation, TARGET);
    expect(upstream.url).toBe('https://api.openai.com/v1/chat/completions');
    expect(upstream.method).toBe('POST');
    expect(upstream.headers).toEqual({ 'content-type': 'application/json' });
    expect(JSON.parse(upstream.body)).toEqual(recorded);
  });

  it('always asks upstream for usage when streaming, whatever the caller asked', () => {
    const body = bodyOf({ ...weatherConversation, includeUsage: false });
    expect(body.stream_options).toEqual({ include_usage: true });
    const nonStreaming = bodyOf(minimalRequest());
    expect(nonStreaming.stream).toBe(false);
    expect(nonStreaming).not.toHaveProperty('stream_options');
  });

  it('sends the output limit as max_tokens unless the caller used max_completion_tokens', () => {
    expect(bodyOf(minimalRequest({ maxOutputTokens: 300 }))).toMatchObject({ max_tokens: 300 });
    const callerUsedNewName = minimalRequest({
      maxOutputTokens: 300,
      passthrough: { dialect: 'openai', fields: { max_completion_tokens: 300, seed: 7 } },
    });
    const body = bodyOf(callerUsedNewName);
    expect(body).toMatchObject({ max_completion_tokens: 300, seed: 7 });
    expect(body).not.toHaveProperty('max_tokens');
    // A host that rejects one name gets the other, whatever the caller used.
    const hostWithoutNewName = createOpenAiAdapter({ dropParams: ['max_completion_tokens'] });
    expect(bodyOf(callerUsedNewName, hostWithoutNewName)).toMatchObject({ max_tokens: 300 });
    expect(bodyOf(minimalRequest({ maxOutputTokens: 300 }), openAiAdapter)).toEqual(
      expect.objectContaining({ max_completion_tokens: 300 }),
    );
    expect(bodyOf(minimalRequest({ maxOutputTokens: 300 }), openAiAdapter)).not.toHaveProperty('max_tokens');
  });

  it('merges same-dialect passthrough fields without overriding built ones, and drops listed params', () => {
    const request = minimalRequest({
      temperature: 0.2,
      user: 'user-42',
      stream: true,
      passthrough: {
        dialect: 'openai',
        fields: { temperature: 1.5, logprobs: true, stream_options: { include_usage: false }, model: 'other' },
      },
    });
    const body = bodyOf(request);
    expect(body).toMatchObject({
      model: 'gpt-4o-2024-08-06',
      temperature: 0.2,
      logprobs: true,
      stream_options: { include_usage: true },
      user: 'user-42',
    });

    const dropping = createOpenAiAdapter({ dropParams: ['stream_options', 'user', 'logprobs'] });
    const dropped = bodyOf(request, dropping);
    expect(dropped).not.toHaveProperty('stream_options');
    expect(dropped).not.toHaveProperty('user');
    expect(dropped).not.toHaveProperty('logprobs');
    expect(dropped.temperature).toBe(0.2);
  });

  it('ignores passthrough fields of another dialect', () => {
    const body = bodyOf(minimalRequest({ passthrough: { dialect: 'anthropic', fields: { top_k: 5 } } }));
    expect(body).not.toHaveProperty('top_k');
  });

  it('sends content arrays only when a message has more than one text part or an image', () => {
    const body = bodyOf(
      minimalRequest({
        messages: [
          { role: 'developer', content: 'Be brief.' },
          {
            role: 'user',
            name: 'ada',
            content: [
              { type: 'text', text: 'What is in this picture?' },
              { type: 'image', url: 'https://example.com/cat.png', detail: 'low' },
            ],
          },
          { role: 'assistant', content: [{ type: 'text', text: 'A cat.' }], refusal: undefined },
          { role: 'tool', toolCallId: 'call_1', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
        ],
      }),
    );
    expect(body.messages).toEqual([
      { role: 'developer', content: 'Be brief.' },
      {
        role: 'user',
        name: 'ada',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } },
        ],
      },
      { role: 'assistant', content: 'A cat.' },
      {
        role: 'tool',
        tool_call_id: 'call_1',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
    ]);
  });

  it('maps a named tool choice and a json_schema response format', () => {
    const body = bodyOf(
      minimalRequest({
        tools: [{ name: 'lookup' }],
        toolChoice: { name: 'lookup' },
        parallelToolCalls: false,
        topP: 0.9,
        responseFormat: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true },
      }),
    );
    expect(body).toMatchObject({
      tools: [{ type: 'function', function: { name: 'lookup' } }],
      tool_choice: { type: 'function', function: { name: 'lookup' } },
      parallel_tool_calls: false,
      top_p: 0.9,
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } },
    });
    expect(bodyOf(minimalRequest({ responseFormat: { type: 'json_object' } })).response_format).toEqual({
      type: 'json_object',
    });
  });

  it('leaves tool_choice and parallel_tool_calls out when there are no tools', () => {
    const body = bodyOf(minimalRequest({ toolChoice: 'required', parallelToolCalls: false, tools: [] }));
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('tool_choice');
    expect(body).not.toHaveProperty('parallel_tool_calls');
  });

  it('joins the base URL without doubling a trailing slash', () => {
    const upstream = plainAdapter.buildRequest(minimalRequest(), { baseUrl: 'http://127.0.0.1:8000/v1/', routedModel: 'm' });
    expect(upstream.url).toBe('http://127.0.0.1:8000/v1/chat/completions');
  });
});

// ---------------------------------------------------------------------------------------------

describe('OpenAI parseResponse', () => {
  it('parses a text completion with detailed usage', () => {
    const result = openAiAdapter.parseResponse(fixtureJson('chat-response-text.json'));
    expect(result).toMatchObject({
      id: 'chatcmpl-D8Z5f52zQqikDBEKQMQoYcWMcWPeU',
      responseModel: 'gpt-4.1-nano-2025-04-14',
      created: 1770933883,
      finishReason: 'stop',
      providerFinishReason: 'stop',
      systemFingerprint: 'fp_de604bd877',
      toolCalls: [],
      usage: { inputTokens: 16, outputTokens: 363, cacheReadTokens: 0, reasoningTokens: 0 },
    });
    expect(result.text.startsWith('**Holiday Name:** Galaxy Day')).toBe(true);
    expect(result.text.endsWith('look up and dream beyond our world.')).toBe(true);
    expect(result.text).toContain('vast darkness\u2014mirroring');
    expect(result.refusal).toBeUndefined();
  });

  it('parses parallel tool calls in order', () => {
    const result = openAiAdapter.parseResponse(fixtureJson('chat-response-parallel-tool-calls.json'));
    expect(result.toolCalls).toEqual([
      {
        id: 'call_fdNz3vOBKYgOIpMdWotB9MjY',
        name: 'GetWeatherArgs',
        arguments: '{"city": "Edinburgh", "country": "GB", "units": "c"}',
      },
      { id: 'call_h1DWI1POMJLb0KwIyQHWXD4p', name: 'get_stock_price', arguments: '{"ticker": "AAPL", "exchange": "NASDAQ"}' },
    ]);
    expect(result.text).toBe('');
    expect(result.finishReason).toBe('tool_calls');
    expect(result.usage).toEqual({ inputTokens: 149, outputTokens: 60, reasoningTokens: 0 });
    expect(result.systemFingerprint).toBe('fp_b40fb1c6fb');
  });

  it('parses the body of a recorded HTTP response', () => {
    const recorded = parseHttpFixture(readFixture(PROVIDER, 'response-headers-and-body.http'));
    expect(recorded.status).toBe(200);
    expect(recorded.headers['x-request-id']).toBe('req_ca8197062dd44e208e21ceef70b46fce');
    expect(recorded.headers['set-cookie']).toEqual(['REDACTED', 'REDACTED']);
    const result = openAiAdapter.parseResponse(JSON.parse(recorded.body));
    expect(result).toMatchObject({
      id: 'chatcmpl-CcWj9dBmozYrIh53F5tkednY14t4r',
      responseModel: 'gpt-5.1-chat-latest',
      text: 'Hello! How can I help you today?',
      finishReason: 'stop',
      usage: { inputTokens: 20, outputTokens: 18, cacheReadTokens: 0, reasoningTokens: 0 },
    });
    // `"system_fingerprint": null` is simply absent.
    expect(result.systemFingerprint).toBeUndefined();
  });

  it('reads reasoning and DeepSeek cache hits from compatible hosts', () => {
    const result = plainAdapter.parseResponse({
      id: 'x',
      model: 'deepseek-reasoner',
      choices: [{ message: { content: 'Yes.', reasoning_content: 'Think.' }, finish_reason: 'eos' }],
      usage: { prompt_tokens: 100, completion_tokens: 10, prompt_cache_hit_tokens: 64 },
    });
    expect(result).toMatchObject({
      text: 'Yes.',
      reasoning: 'Think.',
      finishReason: 'stop',
      providerFinishReason: 'eos',
      usage: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 64 },
    });
  });

  it('throws the classified error when a 200 body carries one', () => {
    const quota = fixtureJson('errors/429-insufficient-quota.json');
    expect(failureOf(() => openAiAdapter.parseResponse(quota))).toMatchObject({
      kind: 'quota_exhausted',
      code: 'insufficient_quota',
    });
    const proxied = { error: { code: 502, message: 'Upstream gateway error' } };
    expect(failureOf(() => openAiAdapter.parseResponse(proxied))).toMatchObject({ kind: 'server_error', code: '502' });
  });

  it('throws server_error for bodies that are not a completion', () => {
    expect(failureOf(() => openAiAdapter.parseResponse('<html>'))).toMatchObject({ kind: 'server_error' });
    expect(failureOf(() => openAiAdapter.parseResponse({ id: 'x', choices: [] }))).toEqual({
      kind: 'server_error',
      message: 'Unexpected Chat Completions response: the response has no choices[0].message.',
    });
  });
});

// ---------------------------------------------------------------------------------------------

interface StreamExpectation {
  shape: string[];
  text: string;
  refusal?: string;
  toolCalls?: { index: number; id: string; name: string; arguments: string }[];
  finish?: { reason: string; providerReason: string };
  usage?: Record<string, number>;
  errors?: Partial<UpstreamFailure>[];
}

const STREAM_EXPECTATIONS: Record<(typeof SSE_FIXTURES)[number], StreamExpectation> = {
  'chat-stream-text.sse': {
    shape: ['response-start', 'text-delta', 'finish', 'usage'],
    text: "I'm unable to provide real-time weather updates. To get the current weather in San Francisco, I recommend checking a reliable weather website or a weather app.",
    finish: { reason: 'stop', providerReason: 'stop' },
    usage: { inputTokens: 14, outputTokens: 30, reasoningTokens: 0 },
  },
  'chat-stream-text-2026-trimmed.sse': {
    shape: ['response-start', 'text-delta', 'finish', 'usage'],
    text: '**Holiday Name.',
    finish: { reason: 'stop', providerReason: 'stop' },
    usage: { inputTokens: 16, outputTokens: 300, cacheReadTokens: 0, reasoningTokens: 0 },
  },
  'chat-stream-tool-call.sse': {
    shape: ['response-start', 'tool-call-start', 'tool-call-delta', 'tool-call-end', 'finish', 'usage'],
    text: '',
    toolCalls: [
      {
        index: 0,
        id: 'call_c91SqDXlYFuETYv8mUHzz6pp',
        name: 'GetWeatherArgs',
        arguments: '{"city":"Edinburgh","country":"UK","units":"c"}',
      },
    ],
    finish: { reason: 'tool_calls', providerReason: 'tool_calls' },
    usage: { inputTokens: 76, outputTokens: 24, reasoningTokens: 0 },
  },
  'chat-stream-parallel-tool-calls.sse': {
    shape: [
      'response-start',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-end',
      'finish',
      'usage',
    ],
    text: '',
    toolCalls: [
      {
        index: 0,
        id: 'call_JMW1whyEaYG438VE1OIflxA2',
        name: 'GetWeatherArgs',
        arguments: '{"city": "Edinburgh", "country": "GB", "units": "c"}',
      },
      { index: 1, id: 'call_DNYTawLBoN8fj3KN6qU9N1Ou', name: 'get_stock_price', arguments: '{"ticker": "AAPL", "exchange": "NASDAQ"}' },
    ],
    finish: { reason: 'tool_calls', providerReason: 'tool_calls' },
    usage: { inputTokens: 149, outputTokens: 60, reasoningTokens: 0 },
  },
  'chat-stream-finish-length.sse': {
    shape: ['response-start', 'text-delta', 'finish', 'usage'],
    text: '{"',
    finish: { reason: 'length', providerReason: 'length' },
    usage: { inputTokens: 79, outputTokens: 1, reasoningTokens: 0 },
  },
  'chat-stream-refusal.sse': {
    shape: ['response-start', 'refusal-delta', 'finish', 'usage'],
    text: '',
    refusal: "I'm sorry, I can't assist with that request.",
    finish: { reason: 'stop', providerReason: 'stop' },
    usage: { inputTokens: 79, outputTokens: 11, reasoningTokens: 0 },
  },
  'chat-stream-error-midstream.sse': {
    shape: ['response-start', 'provider-error'],
    text: '',
    errors: [
      {
        kind: 'server_error',
        type: 'server_error',
        message: 'The server had an error while processing your request. Sorry about that!',
        status: undefined,
      },
    ],
  },
};

describe('OpenAI parseStream', () => {
  for (const name of SSE_FIXTURES) {
    const expected = STREAM_EXPECTATIONS[name];

    it(`parses ${name}`, async () => {
      const events = await replaySse(readFixture(PROVIDER, name), openAiAdapter);
      expect(eventShape(events)).toEqual(expected.shape);
      const summary = summarizeStream(events);
      expect(summary.text).toBe(expected.text);
      expect(summary.refusal).toBe(expected.refusal ?? '');
      expect(summary.reasoning).toBe('');
      expect(summary.toolCalls).toEqual((expected.toolCalls ?? []).map((call) => ({ ...call, ended: true })));
      expect(summary.finish).toEqual(expected.finish);
      expect(summary.usage).toEqual(expected.usage);
      expect(summary.errors).toEqual(expected.errors ?? []);
      expect(summary.malformed).toEqual([]);
      for (const call of summary.toolCalls) expect(() => JSON.parse(call.arguments) as unknown).not.toThrow();
    });

    it(`parses ${name} identically when the bytes arrive in random pieces`, async () => {
      const text = readFixture(PROVIDER, name);
      const whole = await replaySse(text, openAiAdapter);
      for (const seed of [1, 7, 2026]) {
        expect(await replaySse(text, openAiAdapter, randomChunkSizes(seed))).toEqual(whole);
      }
      expect(await replaySse(text, openAiAdapter, [1])).toEqual(whole);
    });
  }

  it('starts with the response identity from the first chunk', async () => {
    const events = await replaySse(readFixture(PROVIDER, 'chat-stream-tool-call.sse'), openAiAdapter);
    expect(events[0]).toEqual({
      type: 'response-start',
      id: 'chatcmpl-ABfw8AOXnoa2kzy11vVTSjuQhHCQr',
      responseModel: 'gpt-4o-2024-08-06',
      created: 1727346176,
      systemFingerprint: 'fp_7568d46099',
    });
  });

  it('reports unparseable events and carries on; [DONE] ends the stream', async () => {
    const chunk = (delta: object, extra: object = {}): string =>
      JSON.stringify({ id: 'c1', model: 'm', choices: [{ index: 0, delta, finish_reason: null }], ...extra });
    const events = await collect(
      parseWith(openAiAdapter)(
        framesOf(
          { data: chunk({ role: 'assistant', content: '' }) },
          { data: '{"truncated": ' },
          { data: chunk({ reasoning_content: 'Let me think.' }) },
          { data: chunk({ reasoning: ' Done.' }) },
          { data: chunk({ content: 'Answer' }) },
          { data: '[DONE]' },
          { data: chunk({ content: 'after done' }) },
        ),
      ),
    );
    expect(events).toEqual([
      { type: 'response-start', id: 'c1', responseModel: 'm', created: undefined, systemFingerprint: undefined },
      { type: 'malformed-event', data: '{"truncated": ' },
      { type: 'reasoning-delta', text: 'Let me think.' },
      { type: 'reasoning-delta', text: ' Done.' },
      { type: 'text-delta', text: 'Answer' },
    ]);
  });

  it('does not restart a tool call whose id is repeated, and indexes entries without an index', async () => {
    const toolChunk = (toolCalls: object[], finishReason: string | null = null): { data: string } => ({
      data: JSON.stringify({ id: 'c2', choices: [{ index: 0, delta: { tool_calls: toolCalls }, finish_reason: finishReason }] }),
    });
    const events = await collect(
      parseWith(openAiAdapter)(
        framesOf(
          toolChunk([{ index: 0, id: 'call_a', function: { name: 'first', arguments: '{"a":' } }]),
          toolChunk([{ index: 0, id: 'call_a', function: { arguments: '1}' } }]),
          toolChunk([], 'tool_calls'),
        ),
      ),
    );
    const summary = summarizeStream(events);
    expect(summary.toolCalls).toEqual([
      { index: 0, id: 'call_a', name: 'first', arguments: '{"a":1}', ended: true },
    ]);
    // Hosts that omit `index` send whole calls in one chunk; their position is the index.
    const secondEvents = await collect(
      parseWith(openAiAdapter)(
        framesOf(
          toolChunk([
            { id: 'call_x', function: { name: 'x', arguments: '{}' } },
            { id: 'call_y', function: { name: 'y', arguments: '{}' } },
          ]),
          toolChunk([], 'tool_calls'),
        ),
      ),
    );
    expect(summarizeStream(secondEvents).toolCalls.map((call) => [call.index, call.id, call.ended])).toEqual([
      [0, 'call_x', true],
      [1, 'call_y', true],
    ]);
    expect(eventShape(secondEvents).slice(-2)).toEqual(['tool-call-end', 'finish']);
  });

  it('classifies an in-stream error with an unknown or prototype-named code as server_error', async () => {
    for (const code of ['constructor', 'toString', 'something_new']) {
      const events = await collect(parseWith(openAiAdapter)(framesOf({ data: JSON.stringify({ error: { message: 'x', code } }) })));
      expect(events.map((event) => event.type === 'provider-error' && event.error.kind)).toEqual(['server_error']);
    }
  });

  it('classifies an error frame named by the SSE event field', async () => {
    const events = await collect(
      parseWith(openAiAdapter)(framesOf({ event: 'error', data: '{"error":{"message":"Rate limited","code":"rate_limit_exceeded"}}' })),
    );
    expect(events).toEqual([
      {
        type: 'provider-error',
        error: { kind: 'rate_limit', code: 'rate_limit_exceeded', message: 'Rate limited', status: undefined, type: undefined },
      },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('OpenAI parseError', () => {
  for (const [name, expected] of Object.entries(ERROR_FIXTURES)) {
    it(`classifies ${name}`, () => {
      const status = Number(name.slice('errors/'.length, 'errors/'.length + 3));
      const body = readFixture(PROVIDER, name);
      const error = openAiAdapter.parseError(status, {}, body, NOW_MS);
      expect(error).toMatchObject({ ...expected, status });
      expect(error.retryAfterMs).toBeUndefined();
      const providerMessage = (JSON.parse(body) as { error: { message: string } }).error.message;
      expect(error.message).toBe(providerMessage);
    });
  }

  it('classifies the documented spend-limit codes as quota_exhausted', () => {
    for (const code of ['organization_spend_limit_exceeded', 'project_spend_limit_exceeded', 'billing_hard_limit_reached']) {
      const body = JSON.stringify({ error: { message: 'Spend limit reached', type: 'insufficient_quota', code } });
      expect(openAiAdapter.parseError(429, {}, body, NOW_MS).kind).toBe('quota_exhausted');
    }
  });

  it('recognises a context overflow by its message when the code is missing', () => {
    const body = JSON.stringify({ error: { message: "This model's maximum context length is 8192 tokens.", type: 'invalid_request_error' } });
    expect(openAiAdapter.parseError(400, {}, body, NOW_MS).kind).toBe('context_length');
  });

  it.each([
    [400, 'invalid_request'],
    [401, 'credential'],
    [402, 'quota_exhausted'],
    [403, 'credential'],
    [404, 'not_found'],
    [408, 'timeout'],
    [409, 'server_error'],
    [413, 'invalid_request'],
    [418, 'invalid_request'],
    [422, 'invalid_request'],
    [429, 'rate_limit'],
    [500, 'server_error'],
    [502, 'server_error'],
    [503, 'server_error'],
    [504, 'server_error'],
    [529, 'server_error'],
    [599, 'server_error'],
  ] as const)('classifies a bare %i as %s', (status, kind) => {
    expect(openAiAdapter.parseError(status, {}, '', NOW_MS)).toEqual({ kind, status, message: `HTTP ${status} with an empty body` });
  });

  it('classifies a non-JSON proxy page by status, with a short excerpt as message', () => {
    const page = `<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<center><h1>502 Bad Gateway</h1></center>\n${'<hr>'.repeat(200)}\n<center>cloudflare</center>\n</body>\n</html>`;
    const error = openAiAdapter.parseError(502, { 'content-type': 'text/html' }, page, NOW_MS);
    expect(error).toEqual({ kind: 'server_error', status: 502, message: '502 Bad Gateway 502 Bad Gateway cloudflare' });
  });

  it('reads Mistral-style error envelopes', () => {
    const body = JSON.stringify({
      object: 'error',
      message: { detail: [{ type: 'extra_forbidden', loc: ['body', 'user'], msg: 'Extra inputs are not permitted' }] },
      type: 'invalid_request_error',
      code: null,
    });
    const error = openAiAdapter.parseError(422, {}, body, NOW_MS);
    expect(error.kind).toBe('invalid_request');
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toContain('Extra inputs are not permitted');
  });

  describe('retry hints', () => {
    const body = readFixture(PROVIDER, 'errors/429-rate-limit-exceeded.json');

    it('prefers retry-after-ms', () => {
      expect(openAiAdapter.parseError(429, { 'retry-after-ms': '1574', 'retry-after': '2' }, body, NOW_MS).retryAfterMs).toBe(1574);
    });

    it('reads retry-after as seconds, fractions included', () => {
      expect(openAiAdapter.parseError(429, { 'retry-after': '2' }, body, NOW_MS).retryAfterMs).toBe(2000);
      expect(openAiAdapter.parseError(429, { 'retry-after': '1.5' }, body, NOW_MS).retryAfterMs).toBe(1500);
      expect(openAiAdapter.parseError(429, { 'retry-after': ['3', '9'] }, body, NOW_MS).retryAfterMs).toBe(3000);
    });

    it('reads retry-after as an HTTP date relative to now', () => {
      const inThirtySeconds = new Date(NOW_MS + 30_000).toUTCString();
      expect(openAiAdapter.parseError(503, { 'retry-after': inThirtySeconds }, '', NOW_MS).retryAfterMs).toBe(30_000);
      const past = new Date(NOW_MS - 5_000).toUTCString();
      expect(openAiAdapter.parseError(503, { 'retry-after': past }, '', NOW_MS).retryAfterMs).toBe(0);
    });

    it('ignores hints it cannot read', () => {
      expect(openAiAdapter.parseError(429, { 'retry-after': 'soon', 'retry-after-ms': '-5' }, body, NOW_MS).retryAfterMs).toBeUndefined();
      // Rate-limit reset durations are not retry hints.
      expect(openAiAdapter.parseError(429, { 'x-ratelimit-reset-tokens': '6m0s' }, body, NOW_MS).retryAfterMs).toBeUndefined();
    });
  });
});
