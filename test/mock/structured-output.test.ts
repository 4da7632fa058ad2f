import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import { postJson } from './helpers.js';

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
