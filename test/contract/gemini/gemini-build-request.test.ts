import { describe, expect, it } from 'vitest';
import { geminiAdapter } from '../../../src/providers/gemini/adapter.js';
import { UpstreamFailureError, type ChatMessage, type ChatRequest, type UpstreamFailure } from '../../../src/providers/spec.js';

const TARGET = { baseUrl: 'https://generativelanguage.googleapis.com/v1beta', routedModel: 'gemini-2.5-flash' };

type Json = Record<string, unknown>;

function userText(text: string): ChatMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}

function minimalRequest(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return { messages: [userText('Hello')], stream: false, includeUsage: false, ...overrides };
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

const weatherTool = {
  name: 'get_weather',
  description: 'Get the weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

describe('Gemini buildRequest: URL and headers', () => {
  it('encodes the model into the path, so that directives in a model name stay in it', () => {
    const upstream = geminiAdapter.buildRequest(minimalRequest({ stream: true }), {
      baseUrl: 'http://127.0.0.1:4010/v1beta/',
      routedModel: 'gemini-mock?status=503&chunks=3',
    });
    expect(upstream.url).toBe('http://127.0.0.1:4010/v1beta/models/gemini-mock%3Fstatus%3D503%26chunks%3D3:streamGenerateContent?alt=sse');
  });

  it('accepts a model configured with the API-style `models/` prefix', () => {
    const upstream = geminiAdapter.buildRequest(minimalRequest(), { ...TARGET, routedModel: 'models/gemini-2.5-pro' });
    expect(upstream.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent');
  });

  it('sends a content type only: the key is added per attempt, never in the URL', () => {
    const upstream = geminiAdapter.buildRequest(minimalRequest({ stream: true }), TARGET);
    expect(upstream.headers).toEqual({ 'content-type': 'application/json' });
    expect(upstream.url).not.toMatch(/key=/);
  });
});

describe('Gemini buildRequest: body', () => {
  it('sends every system and developer message as a system instruction part', () => {
    const body = bodyOf(
      minimalRequest({
        messages: [
          { role: 'system', content: 'Rule one.' },
          userText('Hi'),
          { role: 'developer', content: 'Rule two.' },
          { role: 'system', content: '' },
        ],
      }),
    );
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'Rule one.' }, { text: 'Rule two.' }] });
    expect(body.contents).toEqual([{ role: 'user', parts: [{ text: 'Hi' }] }]);
  });

  it('maps data: URLs to inlineData and http URLs to fileData, and refuses data that is not base64', () => {
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
    expect(body.contents).toEqual([
      {
        role: 'user',
        parts: [
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
          { fileData: { fileUri: 'https://example.com/cat.jpg' } },
          { text: 'Same animal?' },
        ],
      },
    ]);
    const notBase64 = minimalRequest({ messages: [{ role: 'user', content: [{ type: 'image', url: 'data:image/svg+xml,<svg/>' }] }] });
    expect(failureOf(() => geminiAdapter.buildRequest(notBase64, TARGET)).kind).toBe('invalid_request');
  });

  it('sends assistant turns as model turns, merges consecutive turns, and puts parallel results in one user turn', () => {
    const body = bodyOf(
      minimalRequest({
        messages: [
          userText('Compare two cities.'),
          {
            role: 'assistant',
            content: [{ type: 'text', text: 'Checking both.' }, { type: 'text', text: '' }],
            toolCalls: [
              { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
              { id: 'call_b', name: 'get_weather', arguments: '' },
            ],
          },
          { role: 'tool', toolCallId: 'call_a', content: [{ type: 'text', text: '{"celsius": 18}' }] },
          { role: 'tool', toolCallId: 'call_b', content: [{ type: 'text', text: '21C' }] },
          userText('Which is warmer?'),
          { role: 'assistant', content: [], refusal: 'I cannot compare those.' },
        ],
      }),
    );
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Compare two cities.' }] },
      {
        role: 'model',
        parts: [
          { text: 'Checking both.' },
          // Ids from another provider carry nothing to restore: no id, no signature.
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
          { functionCall: { name: 'get_weather', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { celsius: 18 } } },
          { functionResponse: { name: 'get_weather', response: { output: '21C' } } },
          { text: 'Which is warmer?' },
        ],
      },
      { role: 'model', parts: [{ text: 'I cannot compare those.' }] },
    ]);
  });

  it('reports a failed tool call under `error`, and leaves out turns with nothing in them', () => {
    const body = bodyOf(
      minimalRequest({
        messages: [
          userText('Go'),
          { role: 'assistant', content: [], toolCalls: [{ id: 'call_1', name: 'search', arguments: '{"q":"x"}' }] },
          { role: 'tool', toolCallId: 'call_1', content: [{ type: 'text', text: 'timeout after 30s' }], isError: true },
          { role: 'assistant', content: [{ type: 'text', text: '' }] },
        ],
      }),
    );
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Go' }] },
      { role: 'model', parts: [{ functionCall: { name: 'search', args: { q: 'x' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'search', response: { error: 'timeout after 30s' } } }] },
    ]);
  });

  it('refuses a tool result that answers no earlier call, and arguments that are not an object', () => {
    const orphan = minimalRequest({
      messages: [userText('Go'), { role: 'tool', toolCallId: 'call_x', content: [{ type: 'text', text: 'ok' }] }],
    });
    expect(failureOf(() => geminiAdapter.buildRequest(orphan, TARGET))).toEqual({
      kind: 'invalid_request',
      message: 'Tool result call_x answers no earlier tool call; Gemini needs the name of the function it answers.',
    });
    const arrayArguments = minimalRequest({
      messages: [userText('Go'), { role: 'assistant', content: [], toolCalls: [{ id: 'call_8', name: 'sum', arguments: '[1,2]' }] }],
    });
    expect(failureOf(() => geminiAdapter.buildRequest(arrayArguments, TARGET))).toEqual({
      kind: 'invalid_request',
      message: 'Tool call call_8 (sum) has arguments that are not a JSON object; Gemini requires an object.',
    });
  });

  it('declares tools with their JSON Schema as it is, and leaves strict out', () => {
    expect(bodyOf(minimalRequest({ tools: [weatherTool, { name: 'ping' }] })).tools).toEqual([
      {
        functionDeclarations: [
          { name: 'get_weather', description: 'Get the weather for a city', parametersJsonSchema: weatherTool.parameters },
          { name: 'ping' },
        ],
      },
    ]);
  });

  it.each([
    [{ toolChoice: 'auto' as const }, { functionCallingConfig: { mode: 'AUTO' } }],
    [{ toolChoice: 'none' as const }, { functionCallingConfig: { mode: 'NONE' } }],
    [{ toolChoice: 'required' as const }, { functionCallingConfig: { mode: 'ANY' } }],
    [{ toolChoice: { name: 'get_weather' } }, { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } }],
    [{}, undefined],
  ])('maps tool choice %o to %o', (choice, expected) => {
    expect(bodyOf(minimalRequest({ tools: [weatherTool], ...choice })).toolConfig).toEqual(expected);
  });

  it('sends no tool config without tools', () => {
    expect(bodyOf(minimalRequest({ toolChoice: 'required' }))).not.toHaveProperty('toolConfig');
    expect(bodyOf(minimalRequest({ tools: [] }))).not.toHaveProperty('tools');
  });

  it('puts sampling, limits and stop sequences in generationConfig, and sends none when there are none', () => {
    expect(bodyOf(minimalRequest({ maxOutputTokens: 200, temperature: 0, topP: 0.5, stop: ['END', '###'] })).generationConfig).toEqual({
      maxOutputTokens: 200,
      temperature: 0,
      topP: 0.5,
      stopSequences: ['END', '###'],
    });
    expect(bodyOf(minimalRequest({ stop: [], responseFormat: { type: 'text' } }))).not.toHaveProperty('generationConfig');
  });

  it('asks for JSON for json_object, and passes a JSON schema through as responseJsonSchema', () => {
    const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'], additionalProperties: false };
    expect(bodyOf(minimalRequest({ responseFormat: { type: 'json_object' } })).generationConfig).toEqual({
      responseMimeType: 'application/json',
    });
    expect(bodyOf(minimalRequest({ responseFormat: { type: 'json_schema', name: 'math', schema, strict: true } })).generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    });
    expect(bodyOf(minimalRequest({ responseFormat: { type: 'json_schema', name: 'anything' } })).generationConfig).toEqual({
      responseMimeType: 'application/json',
    });
  });

  it('ignores passthrough fields, which only a target of the caller’s own dialect receives', () => {
    const body = bodyOf(minimalRequest({ passthrough: { dialect: 'openai', fields: { seed: 1 } } }));
    expect(body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] });
  });
});
