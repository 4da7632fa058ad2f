import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { describe, expect, it } from 'vitest';
import { bedrockAdapter } from '../../../src/providers/bedrock/adapter.js';
import { UpstreamFailureError, type ChatMessage, type ChatRequest, type UpstreamFailure, type StreamEvent, type ToolDefinition } from '../../../src/providers/spec.js';
import type { SseFrame } from '../../../src/streaming/sse-frame.js';
import {
  collect,
  eventShape,
  framesOf,
  listFixtures,
  parseHttpFixture,
  parseWith,
  randomChunkSizes,
  readFixture,
  replaySse,
  summarizeStream,
} from '../../support/fixtures.js';
import { CACHED_THINKING_TURN, REDACTED_THINKING_DATA, THINKING_SIGNATURE } from '../anthropic/cached-thinking-turn.js';

const PROVIDER = 'bedrock';
const TARGET = { baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com', routedModel: 'anthropic.claude-3-haiku-20240307-v1:0' };
const NOW_MS = Date.parse('2026-11-29T12:00:00Z');
const codec = new EventStreamCodec(toUtf8, fromUtf8);

type Json = Record<string, unknown>;

function fixtureJson(name: string): Json {
  return JSON.parse(readFixture(PROVIDER, name)) as Json;
}

function bodyOf(request: ChatRequest, target = TARGET): Json {
  return JSON.parse(bedrockAdapter.buildRequest(request, target).body) as Json;
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

/** The decoded recordings wrap each payload as `{"<event type>": payload}`; Bedrock sends them as messages. */
function encodeDecodedStream(jsonl: string): Uint8Array {
  const messages = jsonl
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [eventType, payload] = Object.entries(JSON.parse(line) as Json)[0]!;
      // Real payloads carry a padding member, which must change nothing.
      const padded = { ...(payload as Json), p: 'abcdefghijklmnopqrstuvwxyzABCDEFGH' };
      return codec.encode({
        headers: {
          ':event-type': { type: 'string', value: eventType },
          ':content-type': { type: 'string', value: 'application/json' },
          ':message-type': { type: 'string', value: 'event' },
        },
        body: fromUtf8(JSON.stringify(padded)),
      });
    });
  return Uint8Array.from(Buffer.concat(messages));
}

function frame(event: string, payload: Json): SseFrame {
  return { event, data: JSON.stringify(payload) };
}

async function parseFrames(...frames: SseFrame[]): Promise<StreamEvent[]> {
  return collect(parseWith(bedrockAdapter)(framesOf(...frames)));
}

// ---------------------------------------------------------------------------------------------
// Fixture manifest: every file in __fixtures__ is named here, so a new fixture fails until used.

const STREAM_FIXTURES = ['converse-stream-text.decoded.jsonl', 'converse-stream-tool-use.decoded.jsonl'] as const;

const ERROR_FIXTURES: Record<string, { kind: UpstreamFailure['kind']; type?: string; message: string }> = {
  'errors/400-validation-context-too-long.json': { kind: 'context_length', message: 'Input is too long for requested model.' },
  'errors/400-validation-model-passthrough.json': {
    kind: 'context_length',
    message: 'The model returned the following errors: prompt is too long: 227255 tokens > 200000 maximum',
  },
  'errors/429-throttling.http': {
    kind: 'rate_limit',
    type: 'ThrottlingException',
    message: 'Too many tokens, please wait before trying again.',
  },
  'errors/503-service-unavailable-too-many-connections.json': {
    kind: 'server_error',
    message: 'Too many connections, please wait before trying again.',
  },
};

/** Tested in eventstream.test.ts. */
const EVENTSTREAM_FIXTURES = ['converse-stream-frames.hex.txt', 'errors/stream-exception-frame.txt', 'eventstream-framing.md'];

const OTHER_FIXTURES = [
  'converse-request.json',
  'converse-response-text.json',
  'converse-response-tool-use.json',
  'errors/README.md',
];

describe('Bedrock fixtures', () => {
  it('are all exercised by the Bedrock contract tests', () => {
    const named = [...STREAM_FIXTURES, ...Object.keys(ERROR_FIXTURES), ...EVENTSTREAM_FIXTURES, ...OTHER_FIXTURES].sort();
    expect(listFixtures(PROVIDER)).toEqual(named);
  });
});

// ---------------------------------------------------------------------------------------------

const weatherTool: ToolDefinition = {
  name: 'get_weather',
  description: 'Get the weather for a location',
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
};

const weatherToolCall = { id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', name: 'get_weather', arguments: '{"location":"San Francisco, CA"}' };

describe('Bedrock buildRequest', () => {
  it('reproduces the request fixture from the equivalent canonical request', () => {
    const request: ChatRequest = {
      messages: [
        { role: 'system', content: 'You are a concise weather assistant.' },
        userText('What is the weather in SF?'),
        { role: 'assistant', content: [{ type: 'text', text: 'Let me check.' }], toolCalls: [weatherToolCall] },
        { role: 'tool', toolCallId: weatherToolCall.id, content: [{ type: 'text', text: '{"temp_f":61,"condition":"fog"}' }] },
      ],
      tools: [weatherTool],
      toolChoice: 'auto',
      maxOutputTokens: 1024,
      temperature: 0.7,
      topP: 0.9,
      stop: ['\n\n\n'],
      stream: false,
      includeUsage: false,
    };
    const upstream = bedrockAdapter.buildRequest(request, TARGET);
    expect(upstream.url).toBe(
      'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse',
    );
    expect(upstream.method).toBe('POST');
    expect(upstream.headers).toEqual({ 'content-type': 'application/json' });

    // The fixture's comment, its `top_k` (no canonical counterpart) and its `json` tool-result
    // block aside: canonical tool results are text, sent as a text block.
    const { _comment, additionalModelRequestFields, ...expected } = fixtureJson('converse-request.json');
    expect(_comment).toContain('/converse-stream');
    expect(additionalModelRequestFields).toEqual({ top_k: 250 });
    const messages = expected.messages as { content: Json[] }[];
    const toolResult = messages[2]!.content[0]!.toolResult as { content: Json[] };
    toolResult.content = [{ text: JSON.stringify(toolResult.content[0]!.json) }];
    expect(JSON.parse(upstream.body)).toEqual(expected);
  });

  it('asks ConverseStream for an event stream', () => {
    const upstream = bedrockAdapter.buildRequest(minimalRequest({ stream: true }), TARGET);
    expect(upstream.url).toBe(
      'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse-stream',
    );
    expect(upstream.headers).toEqual({ 'content-type': 'application/json', accept: 'application/vnd.amazon.eventstream' });
    expect(JSON.parse(upstream.body)).toEqual({ messages: [{ role: 'user', content: [{ text: 'Hello' }] }] });
  });

  it('encodes the model id as one path segment: ARNs and the mock directives', () => {
    const urlFor = (baseUrl: string, routedModel: string): string =>
      bedrockAdapter.buildRequest(minimalRequest(), { baseUrl, routedModel }).url;
    expect(urlFor('https://bedrock-runtime.eu-west-1.amazonaws.com/', 'arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.anthropic.claude-3-haiku-20240307-v1:0')).toBe(
      'https://bedrock-runtime.eu-west-1.amazonaws.com/model/arn%3Aaws%3Abedrock%3Aeu-west-1%3A123456789012%3Ainference-profile%2Feu.anthropic.claude-3-haiku-20240307-v1%3A0/converse',
    );
    expect(urlFor('http://127.0.0.1:4010', 'bedrock-mock?status=503&after=2')).toBe(
      'http://127.0.0.1:4010/model/bedrock-mock%3Fstatus%3D503%26after%3D2/converse',
    );
  });

  it('merges consecutive tool results into one user turn, results first, and flags failed tools', () => {
    const body = bodyOf(
      minimalRequest({
        messages: [
          userText('Weather in SF and NYC?'),
          {
            role: 'assistant',
            content: [],
            toolCalls: [weatherToolCall, { id: 'tooluse_2', name: 'get_weather', arguments: '' }],
          },
          { role: 'tool', toolCallId: weatherToolCall.id, content: [{ type: 'text', text: '61F' }] },
          { role: 'tool', toolCallId: 'tooluse_2', content: [{ type: 'text', text: 'timeout' }], isError: true },
          userText('And a jacket?'),
        ],
        tools: [weatherTool],
      }),
    );
    expect(body.messages).toEqual([
      { role: 'user', content: [{ text: 'Weather in SF and NYC?' }] },
      {
        role: 'assistant',
        content: [
          { toolUse: { toolUseId: weatherToolCall.id, name: 'get_weather', input: { location: 'San Francisco, CA' } } },
          { toolUse: { toolUseId: 'tooluse_2', name: 'get_weather', input: {} } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: weatherToolCall.id, content: [{ text: '61F' }], status: 'success' } },
          { toolResult: { toolUseId: 'tooluse_2', content: [{ text: 'timeout' }], status: 'error' } },
          { text: 'And a jacket?' },
        ],
      },
    ]);
    expect(body.toolConfig).toEqual({
      tools: [{ toolSpec: { name: 'get_weather', description: weatherTool.description, inputSchema: { json: weatherTool.parameters } } }],
    });
  });

  it('sends system and developer messages as system blocks, drops empty text and keeps a refusal as text', () => {
    const body = bodyOf(
      minimalRequest({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'developer', content: 'Answer in French.' },
          { role: 'user', content: [{ type: 'text', text: '' }, { type: 'text', text: 'Hi' }] },
          { role: 'user', content: [{ type: 'text', text: 'there' }] },
          { role: 'assistant', content: [], refusal: 'I cannot help with that.' },
        ],
      }),
    );
    expect(body.system).toEqual([{ text: 'Be brief.' }, { text: 'Answer in French.' }]);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ text: 'Hi' }, { text: 'there' }] },
      { role: 'assistant', content: [{ text: 'I cannot help with that.' }] },
    ]);
    expect(body).not.toHaveProperty('inferenceConfig');
    expect(body).not.toHaveProperty('toolConfig');
  });

  it('sends cache markers as cache points after the blocks they mark, and signed thinking as reasoning first', () => {
    const claude = { ...TARGET, routedModel: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' };
    expect(bodyOf(CACHED_THINKING_TURN, claude)).toEqual({
      system: [
        { text: 'You are a concise weather assistant.' },
        { text: 'Project notes: answer in Celsius unless the user asks otherwise.' },
        { cachePoint: { type: 'default' } },
      ],
      messages: [
        { role: 'user', content: [{ text: 'What is the weather in Paris?' }, { cachePoint: { type: 'default' } }] },
        {
          role: 'assistant',
          content: [
            {
              reasoningContent: {
                reasoningText: {
                  text: 'The user wants the weather in Paris. I should call get_weather with the city.',
                  signature: THINKING_SIGNATURE,
                },
              },
            },
            { reasoningContent: { redactedContent: REDACTED_THINKING_DATA } },
            { text: 'Let me check the weather in Paris.' },
            { toolUse: { toolUseId: 'toolu_01ThinkingToolUseReconstr', name: 'get_weather', input: { location: 'Paris' } } },
          ],
        },
        {
          role: 'user',
          content: [
            { toolResult: { toolUseId: 'toolu_01ThinkingToolUseReconstr', content: [{ text: '18°C, sunny' }], status: 'success' } },
            { cachePoint: { type: 'default' } },
          ],
        },
      ],
      inferenceConfig: { maxTokens: 16000 },
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: 'get_weather',
              description: 'Get the current weather in a given location',
              inputSchema: { json: CACHED_THINKING_TURN.tools![0]!.parameters },
            },
          },
          { cachePoint: { type: 'default', ttl: '1h' } },
        ],
      },
    });
  });

  it('moves a cache point with its block when tool results and reasoning move first, and leaves unsigned thinking out', () => {
    const marker = { type: 'ephemeral' as const };
    const body = bodyOf(
      minimalRequest({
        messages: [
          userText('Go'),
          { role: 'assistant', content: [{ type: 'text', text: 'One.', cacheControl: marker }] },
          {
            role: 'assistant',
            reasoningBlocks: [{ type: 'thinking', text: 'unsigned' }, { type: 'thinking', text: 'signed', signature: 'sig' }],
            content: [],
            toolCalls: [{ ...weatherToolCall, cacheControl: marker }],
          },
          { role: 'user', content: [{ type: 'text', text: 'Hurry.', cacheControl: marker }] },
          { role: 'tool', toolCallId: weatherToolCall.id, content: [{ type: 'text', text: '61F', cacheControl: marker }] },
        ],
        tools: [weatherTool],
      }),
      { ...TARGET, routedModel: 'anthropic.claude-3-5-haiku-20241022-v1:0' },
    );
    expect(body.messages).toEqual([
      { role: 'user', content: [{ text: 'Go' }] },
      {
        role: 'assistant',
        content: [
          { reasoningContent: { reasoningText: { text: 'signed', signature: 'sig' } } },
          { text: 'One.' },
          { cachePoint: { type: 'default' } },
          { toolUse: { toolUseId: weatherToolCall.id, name: 'get_weather', input: { location: 'San Francisco, CA' } } },
          { cachePoint: { type: 'default' } },
        ],
      },
      {
        role: 'user',
        content: [
          // A marker on a text inside a tool result follows the whole result.
          { toolResult: { toolUseId: weatherToolCall.id, content: [{ text: '61F' }], status: 'success' } },
          { cachePoint: { type: 'default' } },
          { text: 'Hurry.' },
          { cachePoint: { type: 'default' } },
        ],
      },
    ]);
  });

  it.each([
    ['an older Claude without prompt caching', 'anthropic.claude-3-haiku-20240307-v1:0'],
    ['Claude 3.5 Sonnet', 'anthropic.claude-3-5-sonnet-20241022-v2:0'],
    ['another model family', 'meta.llama3-3-70b-instruct-v1:0'],
    ['an application inference profile, which does not name its model', 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3'],
  ])('sends neither cache points nor reasoning blocks to %s', (_name, routedModel) => {
    const body = bodyOf(CACHED_THINKING_TURN, { ...TARGET, routedModel });
    expect(JSON.stringify(body)).not.toMatch(/cachePoint|reasoningContent/);
    expect(body.system).toEqual([
      { text: 'You are a concise weather assistant.' },
      { text: 'Project notes: answer in Celsius unless the user asks otherwise.' },
    ]);
    expect((body.messages as Json[])[1]).toEqual({
      role: 'assistant',
      content: [
        { text: 'Let me check the weather in Paris.' },
        { toolUse: { toolUseId: 'toolu_01ThinkingToolUseReconstr', name: 'get_weather', input: { location: 'Paris' } } },
      ],
    });
  });

  it.each([
    'anthropic.claude-3-7-sonnet-20250219-v1:0',
    'global.anthropic.claude-haiku-4-5-20251001-v1:0',
    'arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-opus-4-1-20250805-v1:0',
    'arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.anthropic.claude-sonnet-4-20250514-v1:0',
  ])('sends cache points and reasoning blocks to %s', (routedModel) => {
    const text = JSON.stringify(bodyOf(CACHED_THINKING_TURN, { ...TARGET, routedModel }));
    expect(text.match(/"cachePoint"/g)).toHaveLength(4);
    expect(text.match(/"reasoningContent"/g)).toHaveLength(2);
  });

  it('sends data-URL images as bytes, and refuses what Converse cannot take', () => {
    const withImage = (url: string): ChatRequest =>
      minimalRequest({ messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image', url }] }] });
    expect(bodyOf(withImage('data:image/png;base64,iVBORw0KGgo=')).messages).toEqual([
      { role: 'user', content: [{ text: 'What is this?' }, { image: { format: 'png', source: { bytes: 'iVBORw0KGgo=' } } }] },
    ]);
    expect(failureOf(() => bodyOf(withImage('https://example.com/cat.png')))).toEqual({
      kind: 'invalid_request',
      message: 'Bedrock Converse cannot fetch images from a URL; send the image as a base64 data: URL.',
    });
    expect(failureOf(() => bodyOf(withImage('data:image/tiff;base64,AAAA'))).kind).toBe('invalid_request');
  });

  it('refuses tool-call arguments that are not a JSON object', () => {
    const request = minimalRequest({
      messages: [userText('Hi'), { role: 'assistant', content: [], toolCalls: [{ id: 't1', name: 'f', arguments: '[1,2]' }] }],
    });
    expect(failureOf(() => bedrockAdapter.buildRequest(request, TARGET))).toMatchObject({
      kind: 'invalid_request',
      message: expect.stringContaining('Tool call t1 (f)') as unknown,
    });
  });

  it.each([
    ['auto', { auto: {} }],
    ['required', { any: {} }],
    [{ name: 'get_weather' }, { tool: { name: 'get_weather' } }],
  ] as const)('maps tool choice %j to %j', (toolChoice, expected) => {
    expect(bodyOf(minimalRequest({ tools: [weatherTool], toolChoice })).toolConfig).toMatchObject({ toolChoice: expected });
  });

  it('says tool choice none by leaving the tools out, unless the history holds tool blocks', () => {
    expect(bodyOf(minimalRequest({ tools: [weatherTool], toolChoice: 'none' }))).not.toHaveProperty('toolConfig');
    const afterToolUse = bodyOf(
      minimalRequest({
        messages: [
          userText('Weather?'),
          { role: 'assistant', content: [], toolCalls: [weatherToolCall] },
          { role: 'tool', toolCallId: weatherToolCall.id, content: [{ type: 'text', text: '61F' }] },
        ],
        tools: [weatherTool],
        toolChoice: 'none',
      }),
    );
    expect(afterToolUse.toolConfig).toEqual({ tools: [expect.objectContaining({ toolSpec: expect.anything() as unknown })] });
  });

  it('sends a JSON schema as structured output, with the schema as JSON text', () => {
    const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
    const body = bodyOf(minimalRequest({ responseFormat: { type: 'json_schema', name: 'person', schema, strict: true } }));
    expect(body.outputConfig).toEqual({
      textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: JSON.stringify(schema), name: 'person' } } },
    });
    expect(bodyOf(minimalRequest({ responseFormat: { type: 'json_object' } }))).not.toHaveProperty('outputConfig');
  });
});

// ---------------------------------------------------------------------------------------------

describe('Bedrock parseResponse', () => {
  it('parses the recorded text response, with no id or model of its own', () => {
    expect(bedrockAdapter.parseResponse(fixtureJson('converse-response-text.json'))).toEqual({
      id: '',
      responseModel: '',
      text: 'Let me count the "r"s in "strawberry":\n\ns-t-**r**-a-w-b-e-**r**-**r**-y\n\nThere are **3** "r"s in "strawberry."',
      toolCalls: [],
      finishReason: 'stop',
      providerFinishReason: 'end_turn',
      usage: { inputTokens: 22, outputTokens: 57, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
  });

  it('parses a tool-use response, the input object as arguments text', () => {
    expect(bedrockAdapter.parseResponse(fixtureJson('converse-response-tool-use.json'))).toMatchObject({
      text: '',
      toolCalls: [{ id: 'tool-use-id', name: 'bash', arguments: '{"command":"ls -l"}' }],
      finishReason: 'tool_calls',
      providerFinishReason: 'tool_use',
      usage: { inputTokens: 10, outputTokens: 20 },
    });
  });

  it('reads reasoning, cache counts into input tokens, and the echoed stop sequence', () => {
    const result = bedrockAdapter.parseResponse({
      output: {
        message: {
          role: 'assistant',
          content: [
            { reasoningContent: { reasoningText: { text: 'Count the letters.', signature: 'sig' } } },
            { reasoningContent: { redactedContent: 'AAAA' } },
            { text: 'Three' },
          ],
        },
      },
      stopReason: 'stop_sequence',
      additionalModelResponseFields: { delta: { stop_sequence: 'END' } },
      usage: { inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 1000, cacheWriteInputTokens: 200, totalTokens: 1215 },
    });
    expect(result).toMatchObject({
      text: 'Three',
      reasoning: 'Count the letters.',
      finishReason: 'stop',
      stopSequence: 'END',
      usage: { inputTokens: 1210, outputTokens: 5, cacheReadTokens: 1000, cacheWriteTokens: 200 },
    });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['guardrail_intervened', 'content_filter'],
    ['content_filtered', 'content_filter'],
    ['malformed_model_output', 'error'],
    ['malformed_tool_use', 'error'],
  ])('maps stopReason %s to %s', (stopReason, finishReason) => {
    const body = { output: { message: { role: 'assistant', content: [] } }, stopReason };
    expect(bedrockAdapter.parseResponse(body).finishReason).toBe(finishReason);
  });

  it('throws a server_error for a body of another shape', () => {
    expect(failureOf(() => bedrockAdapter.parseResponse({ message: 'hi' }))).toEqual({
      kind: 'server_error',
      message: 'Unexpected Converse response: the response has no output.message.content array.',
    });
  });
});

// ---------------------------------------------------------------------------------------------

interface StreamExpectation {
  shape: string[];
  text: string;
  toolCalls: { index: number; id: string; name: string; arguments: string; ended: boolean }[];
  finish: { reason: string; providerReason: string };
  usage: Json;
}

const STREAM_EXPECTATIONS: Record<(typeof STREAM_FIXTURES)[number], StreamExpectation> = {
  'converse-stream-text.decoded.jsonl': {
    shape: ['response-start', 'text-delta', 'finish', 'usage'],
    text: 'Let me count the "r"s in "strawberry":\n\ns-t-**r**-a-w-b-e-**r**-**r**-y\n\nThere are **3** r\'s in "strawberry."',
    toolCalls: [],
    finish: { reason: 'stop', providerReason: 'end_turn' },
    usage: { inputTokens: 22, outputTokens: 55 },
  },
  // Opens without messageStart, and reports usage before messageStop.
  'converse-stream-tool-use.decoded.jsonl': {
    shape: ['response-start', 'tool-call-start', 'tool-call-delta', 'tool-call-end', 'usage', 'finish'],
    text: '',
    toolCalls: [{ index: 0, id: 'tool-use-id', name: 'test-tool', arguments: '{"value":"Sparkle Day"}', ended: true }],
    finish: { reason: 'tool_calls', providerReason: 'tool_use' },
    usage: { inputTokens: 125, outputTokens: 45 },
  },
};

describe('Bedrock parseStream', () => {
  for (const name of STREAM_FIXTURES) {
    const expected = STREAM_EXPECTATIONS[name];
    const bytes = encodeDecodedStream(readFixture(PROVIDER, name));

    it(`parses ${name} as an event stream`, async () => {
      const events = await replaySse(bytes, bedrockAdapter);
      expect(eventShape(events)).toEqual(expected.shape);
      expect(events[0]).toEqual({ type: 'response-start' });
      const summary = summarizeStream(events);
      expect(summary.text).toBe(expected.text);
      expect(summary.reasoning).toBe('');
      expect(summary.toolCalls).toEqual(expected.toolCalls);
      expect(summary.finish).toEqual(expected.finish);
      expect(summary.usage).toEqual(expected.usage);
      expect(summary.errors).toEqual([]);
      expect(summary.malformed).toEqual([]);
    });

    it(`parses ${name} identically when the bytes arrive in random pieces`, async () => {
      const whole = await replaySse(bytes, bedrockAdapter);
      for (const seed of [3, 11, 4096]) {
        expect(await replaySse(bytes, bedrockAdapter, randomChunkSizes(seed))).toEqual(whole);
      }
      expect(await replaySse(bytes, bedrockAdapter, [1])).toEqual(whole);
    });
  }

  it('is done only once both messageStop and metadata have come, in either order', async () => {
    const stop = frame('messageStop', { stopReason: 'end_turn' });
    const metadata = frame('metadata', { usage: { inputTokens: 3, outputTokens: 1 } });
    const late = frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'late' } });
    for (const order of [
      [stop, metadata],
      [metadata, stop],
    ]) {
      const parser = bedrockAdapter.createStreamParser();
      const out: StreamEvent[] = [];
      parser.push(frame('messageStart', { role: 'assistant' }), out);
      parser.push(order[0]!, out);
      expect(parser.done).toBe(false);
      parser.push(order[1]!, out);
      expect(parser.done).toBe(true);
      parser.push(late, out);
      expect(summarizeStream(out).text).toBe('');
    }
  });

  it('streams reasoning and interleaved tool calls, counting tool calls only', async () => {
    const summary = summarizeStream(
      await parseFrames(
        frame('messageStart', { role: 'assistant' }),
        frame('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'Two cities.' } } }),
        frame('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'sig' } } }),
        frame('contentBlockStop', { contentBlockIndex: 0 }),
        frame('contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'Checking.' } }),
        frame('contentBlockDelta', { contentBlockIndex: 1, delta: { text: '' } }),
        frame('contentBlockStop', { contentBlockIndex: 1 }),
        frame('contentBlockStart', { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'tu_a', name: 'get_weather' } } }),
        frame('contentBlockStart', { contentBlockIndex: 3, start: { toolUse: { toolUseId: 'tu_b', name: 'get_weather' } } }),
        frame('contentBlockDelta', { contentBlockIndex: 3, delta: { toolUse: { input: '{"location":"NYC"}' } } }),
        frame('contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '{"location":"SF"}' } } }),
        frame('contentBlockStop', { contentBlockIndex: 2 }),
        frame('contentBlockStop', { contentBlockIndex: 3 }),
        frame('messageStop', { stopReason: 'tool_use' }),
        frame('metadata', { usage: { inputTokens: 10, outputTokens: 30, cacheReadInputTokens: 90, totalTokens: 130 } }),
      ),
    );
    expect(summary.reasoning).toBe('Two cities.');
    expect(summary.text).toBe('Checking.');
    expect(summary.toolCalls).toEqual([
      { index: 0, id: 'tu_a', name: 'get_weather', arguments: '{"location":"SF"}', ended: true },
      { index: 1, id: 'tu_b', name: 'get_weather', arguments: '{"location":"NYC"}', ended: true },
    ]);
    expect(summary.usage).toEqual({ inputTokens: 100, outputTokens: 30, cacheReadTokens: 90 });
  });

  it('reports the stop sequence Claude models echo, and a guardrail as a content filter', async () => {
    const stopped = summarizeStream(
      await parseFrames(frame('messageStop', { stopReason: 'stop_sequence', additionalModelResponseFields: { delta: { stop_sequence: '###' } } })),
    );
    expect(stopped.finish).toEqual({ reason: 'stop', providerReason: 'stop_sequence', stopSequence: '###' });
    const blocked = summarizeStream(await parseFrames(frame('messageStop', { stopReason: 'guardrail_intervened' })));
    expect(blocked.finish).toMatchObject({ reason: 'content_filter' });
  });

  it('marks unreadable payloads malformed and skips event types it does not know', async () => {
    const events = await parseFrames(
      frame('messageStart', { role: 'assistant' }),
      { event: 'contentBlockDelta', data: '{"contentBlockIndex":0,' },
      frame('citationDelta', { text: 'ignored' }),
      frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'ok' } }),
    );
    expect(events).toEqual([
      { type: 'response-start' },
      { type: 'malformed-event', data: '{"contentBlockIndex":0,' },
      { type: 'text-delta', text: 'ok' },
    ]);
  });

  it.each([
    ['throttlingException', 'Too many tokens, please wait before trying again.', 'rate_limit'],
    ['throttlingException', 'Too many tokens per day, please wait before trying again.', 'quota_exhausted'],
    ['serviceUnavailableException', 'Bedrock is unable to process your request.', 'server_error'],
    ['internalServerException', 'Internal error', 'server_error'],
    ['modelStreamErrorException', 'Model stream error', 'server_error'],
    ['validationException', 'Input is too long for requested model.', 'context_length'],
    ['validationException', 'messages: roles must alternate', 'invalid_request'],
    ['someNewException', 'New', 'server_error'],
  ])('ends at a %s frame (%s) with %s', async (event, message, kind) => {
    const events = await parseFrames(
      frame('messageStart', { role: 'assistant' }),
      frame(event, { message, originalStatusCode: 500 }),
      frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'after the error' } }),
    );
    expect(events).toEqual([{ type: 'response-start' }, { type: 'provider-error', error: { kind, type: event, message } }]);
  });

  it('classifies an unmodeled error by its code, and an unreadable exception by its name', async () => {
    const unmodeled = await parseFrames({ event: 'error', data: '{"__type":"ThrottlingException","message":"Slow down"}' });
    expect(unmodeled).toEqual([{ type: 'provider-error', error: { kind: 'rate_limit', type: 'ThrottlingException', message: 'Slow down' } }]);
    const unreadable = await parseFrames({ event: 'internalServerException', data: '' });
    expect(unreadable).toEqual([
      {
        type: 'provider-error',
        error: { kind: 'server_error', type: 'internalServerException', message: 'Bedrock ended the stream with internalServerException.' },
      },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------

function errorInput(name: string): { status: number; headers: Record<string, string | string[]>; body: string } {
  const text = readFixture(PROVIDER, name);
  if (name.endsWith('.http')) return parseHttpFixture(text);
  return { status: Number(name.slice('errors/'.length, 'errors/'.length + 3)), headers: {}, body: text };
}

/** The kind each exception in errors/README.md's table classifies to, by response and in a stream. */
const KIND_BY_EXCEPTION: Record<string, UpstreamFailure['kind']> = {
  ValidationException: 'invalid_request',
  ServiceQuotaExceededException: 'rate_limit',
  AccessDeniedException: 'credential',
  ResourceNotFoundException: 'not_found',
  ModelTimeoutException: 'server_error',
  ModelErrorException: 'server_error',
  ModelStreamErrorException: 'server_error',
  ThrottlingException: 'rate_limit',
  ModelNotReadyException: 'server_error',
  InternalServerException: 'server_error',
  ServiceUnavailableException: 'server_error',
};

function readmeExceptions(): { name: string; status: number; streamFrame?: string }[] {
  return readFixture(PROVIDER, 'errors/README.md')
    .split('\n')
    .map((line) => line.split('|').map((cell) => cell.trim()))
    .filter((cells) => /^[A-Z]\w+Exception$/.test(cells[1] ?? ''))
    .map((cells) => ({
      name: cells[1]!,
      status: Number(cells[2]),
      streamFrame: /^[a-z]\w+Exception\b/.exec(cells[6] ?? '')?.[0],
    }));
}

describe('Bedrock parseError', () => {
  for (const [name, expected] of Object.entries(ERROR_FIXTURES)) {
    it(`classifies ${name}`, () => {
      const { status, headers, body } = errorInput(name);
      const error = bedrockAdapter.parseError(status, headers, body, NOW_MS);
      expect(error).toEqual({ ...expected, status });
    });
  }

  it('classifies every exception of the errors/README.md table, by x-amzn-errortype and in a stream', async () => {
    const exceptions = readmeExceptions();
    expect(exceptions.map(({ name }) => name).sort()).toEqual(Object.keys(KIND_BY_EXCEPTION).sort());
    for (const { name, status, streamFrame } of exceptions) {
      const headers = { 'x-amzn-errortype': `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/` };
      const error = bedrockAdapter.parseError(status, headers, '{"message":"Something happened."}', NOW_MS);
      expect(error, name).toEqual({ kind: KIND_BY_EXCEPTION[name], status, type: name, message: 'Something happened.' });
      if (streamFrame === undefined) continue;
      const events = await parseFrames(frame(streamFrame, { message: 'Something happened.' }));
      expect(events, streamFrame).toEqual([
        { type: 'provider-error', error: { kind: KIND_BY_EXCEPTION[name], type: streamFrame, message: 'Something happened.' } },
      ]);
    }
    expect(exceptions.filter(({ streamFrame }) => streamFrame !== undefined)).toHaveLength(5);
  });

  it('treats a daily token quota as exhausted, not a rate limit to wait out', () => {
    const { status, headers } = errorInput('errors/429-throttling.http');
    const body = '{"message":"Too many tokens per day, please wait before trying again."}';
    expect(bedrockAdapter.parseError(status, headers, body, NOW_MS).kind).toBe('quota_exhausted');
  });

  it.each([
    ['The provided model identifier is invalid.', 'not_found'],
    [
      'Invocation of model ID anthropic.claude-sonnet-4-20250514-v1:0 with on-demand throughput isn’t supported. Retry your request with the ID or ARN of an inference profile that contains this model.',
      'not_found',
    ],
    ['This request has been blocked by our content filters.', 'moderation'],
    ['1 validation error detected: Value at \'messages\' failed to satisfy constraint', 'invalid_request'],
  ])('refines a ValidationException by its message: %s', (message, kind) => {
    const headers = { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/' };
    expect(bedrockAdapter.parseError(400, headers, JSON.stringify({ message }), NOW_MS).kind).toBe(kind);
  });

  it.each([
    ['You invoked an unsupported model or your request did not allow prompt caching. See the documentation for more information.', 'invalid_request'],
    ["You don't have access to the model with the specified model ID.", 'not_found'],
    ['User: arn:aws:iam::123456789012:user/gw is not authorized to perform: bedrock:InvokeModel', 'credential'],
  ])('takes the connection out only for access denials about the key: %s', (message, kind) => {
    const headers = { 'x-amzn-errortype': 'AccessDeniedException:http://internal.amazon.com/coral/com.amazon.bedrock/' };
    expect(bedrockAdapter.parseError(403, headers, JSON.stringify({ message }), NOW_MS).kind).toBe(kind);
  });

  it('reads a Retry-After when one is sent, though Bedrock sends none', () => {
    const { status, headers, body } = errorInput('errors/429-throttling.http');
    expect(bedrockAdapter.parseError(status, headers, body, NOW_MS)).not.toHaveProperty('retryAfterMs');
    expect(bedrockAdapter.parseError(status, { ...headers, 'retry-after': '4' }, body, NOW_MS).retryAfterMs).toBe(4000);
  });

  it('reads the exception from a namespaced __type and a capitalised Message when there is no header', () => {
    const body = '{"__type":"com.amazon.coral.service#UnrecognizedClientException","Message":"The security token included in the request is invalid."}';
    expect(bedrockAdapter.parseError(400, {}, body, NOW_MS)).toEqual({
      kind: 'credential',
      status: 400,
      type: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    });
  });

  it('classifies bodies without an exception name by status', () => {
    expect(bedrockAdapter.parseError(403, {}, '', NOW_MS)).toEqual({ kind: 'credential', status: 403, message: 'HTTP 403 with an empty body' });
    expect(bedrockAdapter.parseError(502, {}, '<html><h1>502 Bad Gateway</h1></html>', NOW_MS)).toMatchObject({
      kind: 'server_error',
      message: '502 Bad Gateway',
    });
    expect(bedrockAdapter.parseError(400, {}, '{"message":"messages.0.content.0.text is blank"}', NOW_MS).kind).toBe('invalid_request');
  });
});
