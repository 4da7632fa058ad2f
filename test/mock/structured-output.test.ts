import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import {
  anthropicText,
  bedrockPath,
  decodeEventStream,
  geminiChunks,
  geminiPath,
  geminiText,
  openaiText,
  parseFrames,
  postJson,
  readBody,
} from './helpers.js';

let mock: MockProvider;

beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());

const schema = {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 3 } },
  required: ['city', 'days'],
  additionalProperties: false,
};

const question = 'plan a trip';

/** Where each wire format asks for a schema, and where its answer's text is, whole and streamed. */
const dialects = [
  {
    name: 'OpenAI Chat response_format',
    path: () => '/v1/chat/completions',
    body: (stream: boolean) => ({
      model: 'gpt-mock',
      stream,
      messages: [{ role: 'user', content: question }],
      response_format: { type: 'json_schema', json_schema: { name: 'trip', schema, strict: true } },
    }),
    textAt: ['choices', 0, 'message', 'content'],
    streamedText: (text: string) => openaiText(parseFrames(text)),
  },
  {
    name: 'OpenAI Responses text.format',
    path: () => '/v1/responses',
    body: (stream: boolean) => ({ model: 'gpt-mock', stream, input: question, text: { format: { type: 'json_schema', name: 'trip', schema, strict: true } } }),
    textAt: ['output', 0, 'content', 0, 'text'],
    streamedText: (text: string) =>
      parseFrames(text)
        .map((frame) => JSON.parse(frame.data) as { type: string; delta?: string })
        .flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta!] : []))
        .join(''),
  },
  {
    name: 'Anthropic output_config.format',
    path: () => '/v1/messages',
    body: (stream: boolean) => ({
      model: 'claude-mock',
      max_tokens: 100,
      stream,
      messages: [{ role: 'user', content: question }],
      output_config: { format: { type: 'json_schema', schema } },
    }),
    textAt: ['content', 0, 'text'],
    streamedText: (text: string) => anthropicText(parseFrames(text)),
  },
  {
    name: 'Gemini generationConfig.responseJsonSchema',
    path: (stream: boolean) => geminiPath('gemini-mock', stream),
    body: () => ({ contents: [{ role: 'user', parts: [{ text: question }] }], generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema } }),
    textAt: ['candidates', 0, 'content', 'parts', 0, 'text'],
    streamedText: (text: string) => geminiText(geminiChunks(text)),
  },
  {
    name: 'Bedrock outputConfig.textFormat',
    path: (stream: boolean) => bedrockPath('bedrock-mock', stream),
    body: () => ({
      messages: [{ role: 'user', content: [{ text: question }] }],
      outputConfig: { textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: JSON.stringify(schema), name: 'trip' } } } },
    }),
    textAt: ['output', 'message', 'content', 0, 'text'],
    streamedText: (_text: string, bytes: Uint8Array) =>
      decodeEventStream(bytes)
        .map((message) => JSON.parse(message.payload) as { delta?: { text?: string } })
        .map((event) => event.delta?.text ?? '')
        .join(''),
  },
];

function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  return path.reduce<unknown>((inner, key) => (inner as Record<string | number, unknown>)[key], value);
}

describe.each(dialects)('$name', (dialect) => {
  it('is answered with JSON that fits the schema, whole and streamed', async () => {
    const whole = await postJson(`${mock.url}${dialect.path(false)}`, dialect.body(false));
    expect(JSON.parse(valueAt(await whole.json(), dialect.textAt) as string)).toEqual({ city: 'w0', days: 3 });

    const streamed = await readBody(await postJson(`${mock.url}${dialect.path(true)}`, dialect.body(true)));
    expect(JSON.parse(dialect.streamedText(streamed.text, streamed.bytes))).toEqual({ city: 'w0', days: 3 });
  });
});

describe('the mock answers JSON that fits the schema, in each wire format', () => {
  it('Anthropic output_config.format, streamed in `chunks` pieces', async () => {
    const response = await postJson(`${mock.url}/v1/messages`, {
      model: 'claude-mock?chunks=4',
      max_tokens: 100,
      stream: true,
      messages: [{ role: 'user', content: 'plan a trip' }],
      output_config: { format: { type: 'json_schema', schema } },
    });
    const text = await response.text();
    const deltas = [...text.matchAll(/"text_delta","text":("(?:[^"\\]|\\.)*")/g)].map((match) => JSON.parse(match[1]!) as string);
    expect(deltas).toHaveLength(4);
    expect(JSON.parse(deltas.join(''))).toEqual({ city: 'w0', days: 3 });
  });

  it("Gemini responseSchema with OpenAPI's upper-case types", async () => {
    const response = await postJson(`${mock.url}/v1beta/models/gemini-mock:generateContent`, {
      contents: [{ role: 'user', parts: [{ text: 'plan a trip' }] }],
      generationConfig: { responseMimeType: 'application/json', responseSchema: { type: 'OBJECT', properties: { ok: { type: 'BOOLEAN' } } } },
    });
    const body = (await response.json()) as { candidates: { content: { parts: { text: string }[] } }[] };
    expect(JSON.parse(body.candidates[0]!.content.parts[0]!.text)).toEqual({ ok: true });
  });

  it('a schema with no possible value is a 400 naming the problem', async () => {
    const response = await postJson(`${mock.url}/v1/chat/completions`, {
      model: 'gpt-mock',
      messages: [{ role: 'user', content: 'hi' }],
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { $ref: '#/$defs/Missing' } } },
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe('mock: $ref "#/$defs/Missing" does not resolve to a schema');
    expect(mock.attempts.at(-1)?.outcome).toBe('invalid_request');
  });
});
