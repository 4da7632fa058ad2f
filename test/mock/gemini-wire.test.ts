import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockAnswerText, startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import { geminiBody, geminiChunks, geminiPath, geminiText, postJson, readBody, type GeminiChunk } from './helpers.js';

let mock: MockProvider;

beforeAll(async () => {
  mock = await startMockProvider();
});

beforeEach(() => {
  mock.reset();
});

afterAll(async () => {
  await mock.close();
});

function usage(promptTokens: number, outputTokens: number): object {
  return {
    promptTokenCount: promptTokens,
    candidatesTokenCount: outputTokens,
    totalTokenCount: promptTokens + outputTokens,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: promptTokens }],
  };
}

describe('Gemini generateContent', () => {
  it('answers in the GenerateContentResponse shape, without request-id or rate-limit headers', async () => {
    // System instruction (8 characters) + contents (22 characters) = 30 characters: 8 input tokens.
    const body = geminiBody({ systemInstruction: { parts: [{ text: 'Be brief' }] } });
    const response = await postJson(`${mock.url}${geminiPath('gemini-mock?chunks=4&ratelimit=10')}`, body);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect([...response.headers.keys()].filter((name) => name.includes('request-id') || name.includes('ratelimit'))).toEqual(
      [],
    );
    expect(await response.json()).toEqual({
      candidates: [
        { content: { parts: [{ text: mockAnswerText(4) }], role: 'model' }, finishReason: 'STOP', index: 0 },
      ],
      usageMetadata: usage(8, 4),
      modelVersion: 'gemini-mock',
      responseId: 'resp_mock_1',
    });
  });

  it('also serves the /v1 prefix and counts snake_case system_instruction', async () => {
    const body = geminiBody({ system_instruction: { parts: [{ text: 'abcdefghij' }] } });
    const response = await postJson(`${mock.url}/v1/models/gemini-mock:generateContent`, body);
    expect(response.status).toBe(200);
    // 10 + 22 characters: 8 input tokens.
    expect(((await response.json()) as { usageMetadata: unknown }).usageMetadata).toEqual(usage(8, 8));
  });

  it('answers tool_call with a functionCall part and finishReason STOP, as Gemini does', async () => {
    const response = await postJson(`${mock.url}${geminiPath('gemini-mock?tool_call=get_weather')}`, geminiBody());
    const answer = (await response.json()) as GeminiChunk;
    expect(answer.candidates).toEqual([
      {
        content: { parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris', unit: 'celsius' } } }], role: 'model' },
        finishReason: 'STOP',
        index: 0,
        finishMessage: 'Model generated function call(s).',
      },
    ]);
    expect(answer.usageMetadata).toMatchObject({ candidatesTokenCount: 3 });
  });

  it('maps finish directives onto finish reasons', async () => {
    const reasons: (string | undefined)[] = [];
    for (const finish of ['length', 'content_filter', 'stop']) {
      const response = await postJson(`${mock.url}${geminiPath(`gemini-mock?finish=${finish}`)}`, geminiBody());
      reasons.push(((await response.json()) as GeminiChunk).candidates?.[0]?.finishReason);
    }
    expect(reasons).toEqual(['MAX_TOKENS', 'SAFETY', 'STOP']);
  });
});

describe('Gemini streamGenerateContent?alt=sse', () => {
  it('streams one CRLF-framed chunk per piece with running usage, then a finishing chunk, and no [DONE]', async () => {
    const response = await postJson(`${mock.url}${geminiPath('gemini-mock?chunks=3', true)}`, geminiBody());
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const read = await readBody(response);
    expect(read.ended).toBe(true);
    expect(read.text.endsWith('}\r\n\r\n')).toBe(true);
    expect(read.text).not.toMatch(/[^\r]\n/);
    const chunks = geminiChunks(read.text).map((chunk) => JSON.parse(chunk) as GeminiChunk);
    expect(chunks).toHaveLength(4);
    chunks.slice(0, 3).forEach((chunk, index) => {
      expect(chunk).toEqual({
        candidates: [{ content: { parts: [{ text: index === 0 ? 'w0' : ` w${index}` }], role: 'model' }, index: 0 }],
        usageMetadata: usage(6, index + 1),
        modelVersion: 'gemini-mock',
        responseId: 'resp_mock_1',
      });
    });
    expect(chunks[3]).toEqual({
      candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata: usage(6, 3),
      modelVersion: 'gemini-mock',
      responseId: 'resp_mock_1',
    });
    expect(geminiText(geminiChunks(read.text))).toBe(mockAnswerText(3));
  });

  it('streams a tool call whole in one finishing chunk', async () => {
    const read = await readBody(
      await postJson(`${mock.url}${geminiPath('gemini-mock?tool_call=get_weather', true)}`, geminiBody()),
    );
    const chunks = geminiChunks(read.text).map((chunk) => JSON.parse(chunk) as GeminiChunk);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.candidates?.[0]).toMatchObject({
      content: { parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris', unit: 'celsius' } } }] },
      finishReason: 'STOP',
    });
  });

  it('refuses the JSON-array form (no alt=sse) with a 400, so a client bug cannot pass', async () => {
    const response = await postJson(`${mock.url}/v1beta/models/gemini-mock:streamGenerateContent`, geminiBody());
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { status: string; message: string } }).error).toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: expect.stringContaining('alt=sse') as unknown,
    });
    expect(mock.attempts[0]?.outcome).toBe('invalid_request');
  });
});

describe('Gemini requests', () => {
  it('takes the model and its directives from the URL-encoded path, and records the attempt', async () => {
    const path = geminiPath('gemini-mock?chunks=2', true);
    expect(path).toBe('/v1beta/models/gemini-mock%3Fchunks%3D2:streamGenerateContent?alt=sse');
    const headers = { 'x-goog-api-key': 'AIza-test', 'x-mock': 'finish=length' };
    const read = await readBody(await postJson(`${mock.url}${path}`, geminiBody(), { headers }));
    expect(geminiText(geminiChunks(read.text))).toBe(mockAnswerText(2));
    expect(JSON.parse(geminiChunks(read.text).at(-1)!)).toMatchObject({ candidates: [{ finishReason: 'MAX_TOKENS' }] });
    expect(mock.attempts[0]).toMatchObject({
      dialect: 'gemini',
      path: '/v1beta/models/gemini-mock%3Fchunks%3D2:streamGenerateContent',
      model: 'gemini-mock?chunks=2',
      name: 'gemini-mock',
      stream: true,
      directives: { chunks: '2', finish: 'length' },
      outcome: 'ok',
    });
    expect(mock.attempts[0]?.headers['x-goog-api-key']).toBe('AIza-test');
  });

  it('answers a bad directive, a bad body and a bad encoding with google.rpc 400s', async () => {
    const directive = await postJson(`${mock.url}${geminiPath('gemini-mock?statsu=503')}`, geminiBody());
    const body = await postJson(`${mock.url}${geminiPath('gemini-mock')}`, 'not json');
    const encoding = await postJson(`${mock.url}/v1beta/models/gemini-mock%E0%A4%A:generateContent`, geminiBody());
    const errors = await Promise.all(
      [directive, body, encoding].map(async (response) => {
        expect(response.status).toBe(400);
        return ((await response.json()) as { error: { code: number; status: string; message: string } }).error;
      }),
    );
    errors.forEach((error) => expect(error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' }));
    expect(errors.map((error) => error.message)).toEqual([
      expect.stringContaining('statsu'),
      expect.stringContaining('JSON object'),
      expect.stringContaining('URL-encoded'),
    ]);
    expect(mock.attempts.map((attempt) => attempt.outcome)).toEqual(['bad_directive', 'invalid_request', 'invalid_request']);
  });
});
