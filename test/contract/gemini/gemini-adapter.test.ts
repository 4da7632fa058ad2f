import { describe, expect, it } from 'vitest';
import { geminiAdapter } from '../../../src/providers/gemini/adapter.js';
import { toolCallIdOf } from '../../../src/providers/gemini/tool-call-id.js';
import { UpstreamFailureError, type ChatRequest, type UpstreamFailure } from '../../../src/providers/spec.js';
import {
  collect,
  eventShape,
  framesOf,
  listFixtures,
  parseWith,
  randomChunkSizes,
  readFixture,
  replaySse,
  summarizeStream,
} from '../../support/fixtures.js';

const PROVIDER = 'gemini';
const TARGET = { baseUrl: 'https://generativelanguage.googleapis.com/v1beta', routedModel: 'gemini-2.5-flash' };
const NOW_MS = Date.parse('2026-03-01T12:00:00Z');

type Json = Record<string, unknown>;

function fixtureJson(name: string): Json {
  return JSON.parse(readFixture(PROVIDER, name)) as Json;
}

function bodyOf(request: ChatRequest, target = TARGET): Json {
  return JSON.parse(geminiAdapter.buildRequest(request, target).body) as Json;
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

/**
 * This adapter declares tool schemas as `parametersJsonSchema` (JSON Schema as clients write it);
 * the recordings use `parameters`, and one spells the list `function_declarations`. Same content.
 */
function asJsonSchemaTools(tools: unknown): Json[] {
  return (tools as Json[]).map((tool) => ({
    functionDeclarations: ((tool.functionDeclarations ?? tool.function_declarations) as Json[]).map(
      ({ parameters, ...declaration }) => ({ ...declaration, parametersJsonSchema: parameters }),
    ),
  }));
}

// ---------------------------------------------------------------------------------------------
// Fixture manifest: every file in __fixtures__ is named here, so a new fixture fails until used.

const REQUEST_FIXTURES = [
  'generateContent-request-full-shape.json',
  'generateContent-request-minimal.json',
  'stream-function-call-request.json',
] as const;

const RESPONSE_FIXTURES = [
  'generateContent-response-function-call.json',
  'generateContent-response-prompt-blocked.json',
  'generateContent-response-safety.json',
  'generateContent-response-text-gemini3-thinking.json',
  'generateContent-response-text.json',
] as const;

const SSE_FIXTURES = [
  'stream-function-call.sse',
  'stream-single-chunk-crlf.sse',
  'stream-text-gemini3-thinking.sse',
  'stream-text-trimmed.sse',
] as const;

const ERROR_FIXTURES: Record<string, { kind: UpstreamFailure['kind']; type: string; code?: string; retryAfterMs?: number }> = {
  'errors/400-invalid-argument-api-key.json': { kind: 'credential', type: 'INVALID_ARGUMENT', code: 'API_KEY_INVALID' },
  'errors/400-invalid-argument-schema.json': { kind: 'invalid_request', type: 'INVALID_ARGUMENT' },
  'errors/400-invalid-argument-token-limit-stream-array.json': { kind: 'context_length', type: 'INVALID_ARGUMENT' },
  'errors/400-invalid-argument-token-limit.json': { kind: 'context_length', type: 'INVALID_ARGUMENT' },
  'errors/404-not-found-model.json': { kind: 'not_found', type: 'NOT_FOUND' },
  // Both say "You exceeded your current quota, please check your plan…", yet both are per-minute
  // limits with a RetryInfo: rate limits, not exhausted quotas.
  'errors/429-resource-exhausted-vercel-fixture.json': { kind: 'rate_limit', type: 'RESOURCE_EXHAUSTED', retryAfterMs: 34_400 },
  'errors/429-resource-exhausted.json': { kind: 'rate_limit', type: 'RESOURCE_EXHAUSTED', retryAfterMs: 26_000 },
  'errors/500-internal.json': { kind: 'server_error', type: 'INTERNAL' },
  'errors/503-unavailable-high-demand.json': { kind: 'server_error', type: 'UNAVAILABLE' },
  'errors/503-unavailable-overloaded.json': { kind: 'server_error', type: 'UNAVAILABLE' },
};

const MIDSTREAM_ERROR_FIXTURE = 'errors/midstream-error-chunk.txt';

describe('Gemini fixtures', () => {
  it('are all exercised by this file', () => {
    const named = [
      ...REQUEST_FIXTURES,
      ...RESPONSE_FIXTURES,
      ...SSE_FIXTURES,
      ...Object.keys(ERROR_FIXTURES),
      MIDSTREAM_ERROR_FIXTURE,
    ].sort();
    expect(listFixtures(PROVIDER)).toEqual(named);
  });
});

// ---------------------------------------------------------------------------------------------

describe('Gemini buildRequest against the recorded requests', () => {
  it('reproduces the minimal request, posted to generateContent with only a content type', () => {
    const upstream = geminiAdapter.buildRequest(
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello' }] }], maxOutputTokens: 50, stream: false, includeUsage: false },
      TARGET,
    );
    expect(upstream.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent');
    expect(upstream.method).toBe('POST');
    expect(upstream.headers).toEqual({ 'content-type': 'application/json' });
    expect(JSON.parse(upstream.body)).toEqual(fixtureJson('generateContent-request-minimal.json'));
  });

  it('reproduces the full shape: system, function call turn with its signature, result, tools, config', () => {
    const signature = 'EskgCsYgAb4+9vtF7/499YQS2bjZs3xcQI+iAl+ILn29nK1j0Kg6su7QsUUUk3nrAAfnS2w5WiVvlcCqu9fAebJ2cvfaEyBahEt5';
    const expected = fixtureJson('generateContent-request-full-shape.json');
    const request: ChatRequest = {
      messages: [
        { role: 'system', content: 'You are a concise weather assistant.' },
        { role: 'user', content: [{ type: 'text', text: "What's the weather in San Francisco?" }] },
        {
          role: 'assistant',
          content: [],
          toolCalls: [{ id: toolCallIdOf({ index: 0, signature }), name: 'weather', arguments: '{"location":"San Francisco"}' }],
        },
        { role: 'tool', toolCallId: toolCallIdOf({ index: 0, signature }), content: [{ type: 'text', text: '{"temperature_f": 61, "condition": "fog"}' }] },
      ],
      tools: [
        {
          name: 'weather',
          description: 'Get the weather for a location',
          parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
        },
      ],
      toolChoice: 'auto',
      maxOutputTokens: 1024,
      temperature: 0.7,
      topP: 0.95,
      stop: ['\n\n\n'],
      stream: false,
      includeUsage: false,
    };
    // The recording holds a placeholder where the real signature goes, and settings (candidate
    // count, thinking, safety) that the canonical request does not carry.
    const { safetySettings: _safety, generationConfig, contents, tools, ...rest } = expected;
    const { candidateCount: _count, thinkingConfig: _thinking, ...canonicalConfig } = generationConfig as Json;
    const [ask, call, result] = contents as Json[];
    const callPart = ((call as { parts: Json[] }).parts[0]!);
    expect(bodyOf(request)).toEqual({
      ...rest,
      contents: [ask, { role: 'model', parts: [{ ...callPart, thoughtSignature: signature }] }, result],
      tools: asJsonSchemaTools(tools),
      generationConfig: canonicalConfig,
    });
  });

  it('reproduces the recorded streaming tools request, posted to streamGenerateContent with alt=sse', () => {
    const expected = fixtureJson('stream-function-call-request.json');
    const [declaration] = (expected.tools as { function_declarations: Json[] }[])[0]!.function_declarations;
    const upstream = geminiAdapter.buildRequest(
      {
        messages: [{ role: 'user', content: [{ type: 'text', text: '今日の東京の天気を教えて' }] }],
        tools: [
          {
            name: declaration!.name as string,
            description: declaration!.description as string,
            parameters: declaration!.parameters as Json,
          },
        ],
        stream: true,
        includeUsage: false,
      },
      TARGET,
    );
    expect(upstream.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(JSON.parse(upstream.body)).toEqual({ ...expected, tools: asJsonSchemaTools(expected.tools) });
  });
});

// ---------------------------------------------------------------------------------------------

describe('Gemini parseResponse', () => {
  it('parses a text answer, counting thoughts as output', () => {
    expect(geminiAdapter.parseResponse(fixtureJson('generateContent-response-text.json'))).toEqual({
      id: 'FugfaZasF6ra2roP_9i9KQ',
      responseModel: 'gemini-2.5-flash',
      text: 'Hello!',
      reasoning: undefined,
      toolCalls: [],
      finishReason: 'stop',
      providerFinishReason: 'STOP',
      // totalTokenCount 22 = 3 + 19.
      usage: { inputTokens: 3, outputTokens: 19, reasoningTokens: 17, cacheReadTokens: undefined },
    });
  });

  it('parses a Gemini 3 answer, leaving out the signature on its text part', () => {
    expect(geminiAdapter.parseResponse(fixtureJson('generateContent-response-text-gemini3-thinking.json'))).toEqual({
      id: 'Un6LacrVMcjUxs0PmJfWoQc',
      responseModel: 'gemini-3-pro-preview',
      text: "There are **3** r's in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.",
      reasoning: undefined,
      toolCalls: [],
      finishReason: 'stop',
      providerFinishReason: 'STOP',
      // totalTokenCount 281 = 9 + 272.
      usage: { inputTokens: 9, outputTokens: 272, reasoningTokens: 244 },
    });
  });

  it('parses a function call: STOP with a functionCall part is tool_calls, and the id carries the signature', () => {
    expect(geminiAdapter.parseResponse(fixtureJson('generateContent-response-function-call.json'))).toEqual({
      id: 'm36LaZGyCLz1xs0PtNSB-QU',
      responseModel: 'gemini-3-pro-preview',
      text: '',
      reasoning: undefined,
      toolCalls: [
        {
          id: 'gmx14_0-m36LaZGyCLz1EskgCsYgAb4-9vtF7_499YQS2bjZs3xcQI-iAl-ILn29nK1j0Kg6su7QsUUUk3nrAAfnS2w5WiVvlcCqu9fAebJ2cvfaEyBahEt5',
          name: 'weather',
          arguments: '{"location":"San Francisco"}',
        },
      ],
      finishReason: 'tool_calls',
      providerFinishReason: 'STOP',
      // totalTokenCount 937 = 29 + 908.
      usage: { inputTokens: 29, outputTokens: 908, reasoningTokens: 893 },
    });
  });

  it('parses a SAFETY stop without content as content_filter (the engine makes it a moderation failure)', () => {
    expect(geminiAdapter.parseResponse(fixtureJson('generateContent-response-safety.json'))).toEqual({
      id: '',
      responseModel: '',
      text: '',
      reasoning: undefined,
      toolCalls: [],
      finishReason: 'content_filter',
      providerFinishReason: 'SAFETY',
      usage: { inputTokens: 752, outputTokens: 16 },
    });
  });

  it('throws a moderation failure for a prompt blocked before generation', () => {
    expect(failureOf(() => geminiAdapter.parseResponse(fixtureJson('generateContent-response-prompt-blocked.json')))).toEqual({
      kind: 'moderation',
      code: 'SAFETY',
      message: 'Gemini blocked the prompt before answering (SAFETY).',
    });
  });

  it('reads thought parts as reasoning, and cached and tool-use prompt tokens as input', () => {
    const result = geminiAdapter.parseResponse({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [{ text: 'Counting letters.', thought: true }, { text: 'Three' }, { text: '.', thoughtSignature: 'c2ln' }],
          },
          finishReason: 'STOP',
        },
      ],
      usageMetadata: {
        promptTokenCount: 1200,
        cachedContentTokenCount: 1000,
        toolUsePromptTokenCount: 30,
        candidatesTokenCount: 2,
        thoughtsTokenCount: 40,
      },
    });
    expect(result).toMatchObject({
      text: 'Three.',
      reasoning: 'Counting letters.',
      usage: { inputTokens: 1230, outputTokens: 42, cacheReadTokens: 1000, reasoningTokens: 40 },
    });
  });

  it.each([
    ['STOP', false, 'stop'],
    ['STOP', true, 'tool_calls'],
    ['MAX_TOKENS', false, 'length'],
    ['MAX_TOKENS', true, 'length'],
    ['SAFETY', false, 'content_filter'],
    ['RECITATION', false, 'content_filter'],
    ['BLOCKLIST', false, 'content_filter'],
    ['PROHIBITED_CONTENT', false, 'content_filter'],
    ['SPII', false, 'content_filter'],
    ['IMAGE_SAFETY', false, 'content_filter'],
    ['MALFORMED_FUNCTION_CALL', false, 'error'],
    ['UNEXPECTED_TOOL_CALL', false, 'error'],
    ['TOO_MANY_TOOL_CALLS', false, 'error'],
    ['OTHER', false, 'stop'],
    ['FINISH_REASON_UNSPECIFIED', false, 'stop'],
  ])('maps finishReason %s (function call: %s) to %s', (finishReason, calledFunction, expected) => {
    const parts = calledFunction ? [{ functionCall: { name: 'f', args: {} } }] : [{ text: 'x' }];
    const result = geminiAdapter.parseResponse({ candidates: [{ content: { role: 'model', parts }, finishReason }] });
    expect(result.finishReason).toBe(expected);
    expect(result.providerFinishReason).toBe(finishReason);
  });

  it('gives each function call of a response its own id, and absent args become {}', () => {
    const result = geminiAdapter.parseResponse({
      responseId: 'resp-abc',
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { functionCall: { name: 'weather', args: { city: 'Paris' } }, thoughtSignature: 'c2lnbmF0dXJl' },
              { functionCall: { name: 'weather', args: { city: 'Rome' } } },
              { functionCall: { name: 'clock' } },
            ],
          },
          finishReason: 'STOP',
        },
      ],
    });
    expect(result.toolCalls).toEqual([
      { id: 'gmx10_0-resp-abcc2lnbmF0dXJl', name: 'weather', arguments: '{"city":"Paris"}' },
      { id: 'gmx10_1-resp-abc', name: 'weather', arguments: '{"city":"Rome"}' },
      { id: 'gmx10_2-resp-abc', name: 'clock', arguments: '{}' },
    ]);
  });

  it('throws the classified error for an error body, and server_error for a body without candidates', () => {
    expect(failureOf(() => geminiAdapter.parseResponse(fixtureJson('errors/503-unavailable-overloaded.json')))).toEqual({
      kind: 'server_error',
      type: 'UNAVAILABLE',
      message: 'The model is overloaded. Please try again later.',
      status: undefined,
      code: undefined,
    });
    expect(failureOf(() => geminiAdapter.parseResponse({ usageMetadata: { promptTokenCount: 3 } }))).toEqual({
      kind: 'server_error',
      message: 'Unexpected generateContent response: the response has no candidates.',
    });
    expect(failureOf(() => geminiAdapter.parseResponse('Hello')).kind).toBe('server_error');
  });
});

// ---------------------------------------------------------------------------------------------

interface StreamExpectation {
  shape: string[];
  start: { id: string; responseModel: string };
  text: string;
  toolCalls?: { index: number; id: string; name: string; arguments: string }[];
  finish: { reason: string; providerReason: string };
  usage: { inputTokens: number; outputTokens: number; reasoningTokens: number };
  /** The last chunk's totalTokenCount, which canonical input + output must add up to. */
  totalTokens: number;
}

const STREAM_EXPECTATIONS: Record<(typeof SSE_FIXTURES)[number], StreamExpectation> = {
  'stream-function-call.sse': {
    shape: ['response-start', 'tool-call-start', 'tool-call-delta', 'tool-call-end', 'usage', 'finish'],
    start: { id: 'qpc2afWVFJK4vr0Pq6WiyAU', responseModel: 'gemini-2.5-flash' },
    text: '',
    toolCalls: [
      {
        index: 0,
        id: toolCallIdOf({
          index: 0,
          responseId: 'qpc2afWVFJK4vr0Pq6WiyAU',
          signature:
            'CikBcsjafFK168IbtVtoxVV0Tsn8O+eU45rzJahzwuKGmMbdMdfpmNpgBwplAXLI2nyA/pIFcnZwFm+7WFmLyMd8R4DXwsjqaeAAfCKo5G1xIkbAlJp8VevnIWRZ9SyMmiiqmY6linicJ5dg3rVLHM9wwSQ8FEvAxgO3Ave1rRlh/SaJJFga1B9dMG3/N47GFqwK+gEBcsjafObYgvlABo1phEN1CKDzH7WTmK7zPW4uq3XjeK4/u2gfFDTdvuYqLJq9vo4GQmore52mUb5CVHCXZlE0njQNbI9JrW1lFh5YL3V/mDA8gijgklVhHyYm6czsDLc02CDlEB+kFbLWwBu8XRLXG8o7puiF55DhmoNo1zjhTUUmoHMIXlj5x8Gc7CG1A7anQfgt4i/WlSY3OF3+/wDw5ErrwUeFzf70jmZlJ35qkNM+vw3lCJSFl6G5ilZx8M2Fmem9TQsWnOyuwe2IS2wUYyz2WRuNTftt3oEaCFjAujlQKtnvEVFUhb9215sQ7/95rKH94ycby+/FCrwBAXLI2ny4QDIhPlsiu+PON0umjJ86dmZOOE1B3rcYiN0xtyYy8FzQkcldwKdmsCowarVD1U94laHUB3HZ+wgEJMLjya8AildnNtvt5LBQ9wiCy0wFzRCvEtvAkC/nn0c6ciudegTiyoyWy8W60Bnzu6L0pmy7N2J+sIQaT9VQ1UZxxjLfHCSgcygSDaOdRJm5xcUYlXi5FtRfIzJNCla5bxx/jwFpbNDvujxv/Pnndju9ScUZJac8b/rnybo=',
        }),
        name: 'getWeather',
        arguments: '{"location":"Tokyo"}',
      },
    ],
    finish: { reason: 'tool_calls', providerReason: 'STOP' },
    usage: { inputTokens: 83, outputTokens: 118, reasoningTokens: 104 },
    totalTokens: 201,
  },
  'stream-single-chunk-crlf.sse': {
    shape: ['response-start', 'text-delta', 'usage', 'finish'],
    start: { id: '4HkhaaajEJaY0-kPyI_b2A4', responseModel: 'gemini-2.5-flash' },
    text: '1, 2, 3',
    finish: { reason: 'stop', providerReason: 'STOP' },
    usage: { inputTokens: 8, outputTokens: 30, reasoningTokens: 23 },
    totalTokens: 38,
  },
  // The last chunk holds only an empty text part with the signature, and the finish.
  'stream-text-gemini3-thinking.sse': {
    shape: ['response-start', 'text-delta', 'usage', 'text-delta', 'usage', 'finish'],
    start: { id: 'bH6LaZW8Fp_3nsEPqtaSwQ4', responseModel: 'gemini-3-pro-preview' },
    text: 'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y',
    finish: { reason: 'stop', providerReason: 'STOP' },
    usage: { inputTokens: 9, outputTokens: 208, reasoningTokens: 185 },
    totalTokens: 217,
  },
  'stream-text-trimmed.sse': {
    shape: ['response-start', 'text-delta', 'usage', 'text-delta', 'usage', 'text-delta', 'usage', 'text-delta', 'usage', 'finish'],
    start: { id: 'IZI2acSKMoWl0-kPmYj2yQc', responseModel: 'gemini-2.5-flash' },
    text:
      "Okay, let's create a Tetris game in Python for the console! We'll use the `curses` library for a full-screen, interactive experience.\n\n**Important Notes Before You Start:**\n\n1.  **`curses" +
      '` is primarily for Unix-like systems (Linux, macOS).** It might not work out-of-the-box on Windows. For Windows, you might need `windows-curses` (`pip install windows-curses`) or consider' +
      "   `stdscr.refresh()`: Updates the physical terminal screen with what's been drawn to the virtual screen.\n\nThis creates a functional, albeit basic, console Tetris game! You could extend it with more features like ghost pieces" +
      ', hold functionality, sound, high scores, etc.',
    finish: { reason: 'stop', providerReason: 'STOP' },
    usage: { inputTokens: 4, outputTokens: 7989, reasoningTokens: 2042 },
    totalTokens: 7993,
  },
};

describe('Gemini parseStream', () => {
  for (const name of SSE_FIXTURES) {
    const expected = STREAM_EXPECTATIONS[name];

    it(`parses ${name}`, async () => {
      const events = await replaySse(readFixture(PROVIDER, name), geminiAdapter);
      expect(eventShape(events)).toEqual(expected.shape);
      const summary = summarizeStream(events);
      expect(summary.start).toEqual(expected.start);
      expect(summary.text).toBe(expected.text);
      expect(summary.reasoning).toBe('');
      expect(summary.toolCalls).toEqual((expected.toolCalls ?? []).map((call) => ({ ...call, ended: true })));
      expect(summary.finish).toEqual(expected.finish);
      expect(summary.usage).toEqual(expected.usage);
      expect(summary.usage!.inputTokens + summary.usage!.outputTokens).toBe(expected.totalTokens);
      expect(summary.errors).toEqual([]);
      expect(summary.malformed).toEqual([]);
    });

    it(`parses ${name} identically when the bytes arrive in random pieces`, async () => {
      const text = readFixture(PROVIDER, name);
      const whole = await replaySse(text, geminiAdapter);
      for (const seed of [3, 11, 4096]) {
        expect(await replaySse(text, geminiAdapter, randomChunkSizes(seed))).toEqual(whole);
      }
      expect(await replaySse(text, geminiAdapter, [1])).toEqual(whole);
    });
  }

  it('reports the running usage totals of every chunk', async () => {
    const events = await replaySse(readFixture(PROVIDER, 'stream-text-trimmed.sse'), geminiAdapter);
    const outputs = events.flatMap((event) => (event.type === 'usage' ? [event.usage.outputTokens] : []));
    expect(outputs).toEqual([49 + 2042, 97 + 2042, 5936 + 2042, 5947 + 2042]);
  });

  it('turns the error chunk that follows a 200 into a provider error that ends the stream', async () => {
    // After a 200, Gemini sends the error as a bare JSON line without `data:`: the SSE decoder
    // makes it a frame of its own. The fixture's `#` lines are comments to the decoder.
    const events = await replaySse(readFixture(PROVIDER, MIDSTREAM_ERROR_FIXTURE), geminiAdapter);
    expect(eventShape(events)).toEqual(['response-start', 'text-delta', 'usage', 'finish', 'provider-error']);
    const summary = summarizeStream(events);
    expect(summary.text).toBe('The');
    expect(summary.errors).toEqual([
      { kind: 'server_error', status: undefined, type: 'INTERNAL', code: undefined, message: 'Internal error' },
    ]);
  });

  it('classifies an in-stream error by the status it names, also when wrapped in an array', async () => {
    const rateLimited = JSON.stringify([
      {
        error: {
          code: 429,
          message: 'Resource has been exhausted (e.g. check quota).',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1.5s' }],
        },
      },
    ]);
    const events = await collect(parseWith(geminiAdapter)(framesOf({ data: rateLimited })));
    expect(events).toEqual([
      {
        type: 'provider-error',
        error: {
          kind: 'rate_limit',
          status: undefined,
          type: 'RESOURCE_EXHAUSTED',
          code: undefined,
          message: 'Resource has been exhausted (e.g. check quota).',
          retryAfterMs: 1500,
        },
      },
    ]);
  });

  it('ends with a moderation error when the prompt is blocked, reading nothing after it', async () => {
    const blocked = readFixture(PROVIDER, 'generateContent-response-prompt-blocked.json').replace(/\s*\n\s*/g, '');
    const sse = `data: ${blocked}\r\n\r\ndata: {"candidates":[{"content":{"parts":[{"text":"late"}]}}]}\r\n\r\n`;
    expect(await replaySse(sse, geminiAdapter, randomChunkSizes(7))).toEqual([
      {
        type: 'provider-error',
        error: { kind: 'moderation', code: 'SAFETY', message: 'Gemini blocked the prompt before answering (SAFETY).' },
      },
    ]);
  });

  it('streams thoughts as reasoning, counts tool calls across chunks, and reports malformed data', async () => {
    const chunk = (value: object): { data: string } => ({ data: JSON.stringify(value) });
    const events = await collect(
      parseWith(geminiAdapter)(
        framesOf(
          chunk({
            candidates: [{ content: { role: 'model', parts: [{ text: 'Two cities.', thought: true }] } }],
            usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 },
            responseId: 'r1',
            modelVersion: 'gemini-3-flash',
          }),
          { data: '{"candidates": [' },
          chunk({
            candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'weather', args: { city: 'Paris' } }, thoughtSignature: 'AAAA' }] } }],
          }),
          chunk({
            candidates: [
              {
                content: { role: 'model', parts: [{ functionCall: { name: 'weather', args: { city: 'Rome' } } }] },
                finishReason: 'STOP',
              },
            ],
            usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 20, thoughtsTokenCount: 9 },
          }),
        ),
      ),
    );
    expect(events[0]).toEqual({ type: 'response-start', id: 'r1', responseModel: 'gemini-3-flash' });
    // The first usage comes before any candidate tokens are counted.
    expect(events[2]).toEqual({ type: 'usage', usage: { inputTokens: 5, outputTokens: 0 } });
    const summary = summarizeStream(events);
    expect(summary.reasoning).toBe('Two cities.');
    expect(summary.malformed).toEqual(['{"candidates": [']);
    expect(summary.toolCalls).toEqual([
      { index: 0, id: 'gmx4_0-r1AAAA', name: 'weather', arguments: '{"city":"Paris"}', ended: true },
      { index: 1, id: 'gmx4_1-r1', name: 'weather', arguments: '{"city":"Rome"}', ended: true },
    ]);
    expect(summary.finish).toEqual({ reason: 'tool_calls', providerReason: 'STOP' });
    expect(summary.usage).toEqual({ inputTokens: 5, outputTokens: 29, reasoningTokens: 9 });
  });
});

// ---------------------------------------------------------------------------------------------

describe('Gemini parseError', () => {
  for (const [name, expected] of Object.entries(ERROR_FIXTURES)) {
    it(`classifies ${name}`, () => {
      const status = Number(name.slice('errors/'.length, 'errors/'.length + 3));
      const body = readFixture(PROVIDER, name);
      const error = geminiAdapter.parseError(status, {}, body, NOW_MS);
      expect(error).toEqual({ code: undefined, ...expected, status, message: expect.any(String) as string });
      const parsed = JSON.parse(body) as { error: { message: string } } | { error: { message: string } }[];
      expect(error.message).toBe((Array.isArray(parsed) ? parsed[0]! : parsed).error.message);
    });
  }

  it('treats an exhausted daily quota as quota_exhausted, whatever its RetryInfo says', () => {
    const body = JSON.stringify({
      error: {
        code: 429,
        message: 'You exceeded your current quota, please check your plan and billing details.',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
            violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier' }],
          },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '18s' },
        ],
      },
    });
    expect(geminiAdapter.parseError(429, {}, body, NOW_MS)).toMatchObject({ kind: 'quota_exhausted', retryAfterMs: 18_000 });
  });

  it('treats a 402 (prepaid credit used up) as quota_exhausted', () => {
    const body = JSON.stringify({ error: { code: 402, message: 'Your prepayment credits are depleted.', status: 'RESOURCE_EXHAUSTED' } });
    expect(geminiAdapter.parseError(402, {}, body, NOW_MS).kind).toBe('quota_exhausted');
  });

  it('prefers the body RetryInfo, and falls back to a Retry-After header', () => {
    const withRetryInfo = readFixture(PROVIDER, 'errors/429-resource-exhausted.json');
    expect(geminiAdapter.parseError(429, { 'retry-after': '5' }, withRetryInfo, NOW_MS).retryAfterMs).toBe(26_000);
    const bare = JSON.stringify({ error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' } });
    expect(geminiAdapter.parseError(429, { 'retry-after': '5' }, bare, NOW_MS)).toMatchObject({ kind: 'rate_limit', retryAfterMs: 5000 });
    expect(geminiAdapter.parseError(429, {}, bare, NOW_MS)).not.toHaveProperty('retryAfterMs');
  });

  it.each([
    [403, 'PERMISSION_DENIED', 'Permission denied: Consumer has been suspended.', 'credential'],
    [401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.', 'credential'],
    [400, 'INVALID_ARGUMENT', 'API key expired. Please renew the API key.', 'credential'],
    [400, 'FAILED_PRECONDITION', 'User location is not supported for the API use.', 'invalid_request'],
    [504, 'DEADLINE_EXCEEDED', 'Deadline expired before operation could complete.', 'server_error'],
  ])('classifies %i %s as %s', (status, rpcStatus, message, kind) => {
    const body = JSON.stringify({ error: { code: status, message, status: rpcStatus } });
    expect(geminiAdapter.parseError(status, {}, body, NOW_MS)).toEqual({ kind, status, type: rpcStatus, code: undefined, message });
  });

  it('classifies bodies that are not Gemini errors by status', () => {
    expect(geminiAdapter.parseError(502, {}, '<html><title>502 Bad Gateway</title></html>', NOW_MS)).toEqual({
      kind: 'server_error',
      status: 502,
      type: undefined,
      code: undefined,
      message: '502 Bad Gateway',
    });
    expect(geminiAdapter.parseError(404, {}, '', NOW_MS)).toMatchObject({ kind: 'not_found', message: 'HTTP 404 with an empty body' });
  });
});
