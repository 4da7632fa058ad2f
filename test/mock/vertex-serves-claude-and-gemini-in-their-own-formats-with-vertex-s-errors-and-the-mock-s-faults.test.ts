import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockAnswerText, startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import {
  anthropicText,
  geminiBody,
  geminiChunks,
  geminiText,
  parseFrames,
  postJson,
  readBody,
  vertexAuthorization,
  vertexClaudeBody,
  vertexPath,
  type GeminiChunk,
} from './helpers.js';

let mock: MockProvider;
let auth: Record<string, string>;

beforeAll(async () => {
  mock = await startMockProvider();
  auth = await vertexAuthorization(mock.url);
});

beforeEach(() => {
  mock.reset();
});

afterAll(async () => {
  await mock.close();
});

interface GoogleError {
  error: { code: number; message: string; status: string; details?: Record<string, unknown>[] };
}

async function claude(model: string, method = 'rawPredict', body: Record<string, unknown> = vertexClaudeBody()): Promise<Response> {
  return postJson(`${mock.url}${vertexPath('anthropic', model, method)}`, body, { headers: auth });
}

async function gemini(model: string, method = 'generateContent', body: Record<string, unknown> = geminiBody()): Promise<Response> {
  return postJson(`${mock.url}${vertexPath('google', model, method)}`, body, { headers: auth });
}

describe('Claude on Vertex', () => {
  it('answers rawPredict with a Messages object naming the model in Anthropic spelling, and records the home', async () => {
    const response = await claude('claude-sonnet-4-5@20250929?chunks=3');
    expect(response.status).toBe(200);
    expect(response.headers.get('request-id')).toBe('req_mock_1');
    expect([...response.headers.keys()].filter((name) => name.includes('ratelimit'))).toEqual([]);
    expect(await response.json()).toMatchObject({
      model: 'claude-sonnet-4-5-20250929',
      type: 'message',
      content: [{ type: 'text', text: mockAnswerText(3) }],
      stop_reason: 'end_turn',
    });
    expect(mock.attempts[0]).toMatchObject({ home: 'vertex', dialect: 'anthropic', name: 'claude-sonnet-4-5@20250929', stream: false });
  });

  it('streams streamRawPredict as Anthropic events', async () => {
    const read = await readBody(await claude('claude-sonnet-4-5@20250929?chunks=4', 'streamRawPredict'));
    const frames = parseFrames(read.text);
    expect(frames.map((frame) => frame.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      ...Array<string>(4).fill('content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(anthropicText(frames)).toBe(mockAnswerText(4));
    expect(mock.attempts[0]!.stream).toBe(true);
  });

  it('calls a forced tool with arguments from its schema', async () => {
    const tools = [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
    const response = await claude('claude-sonnet-4-5@20250929', 'rawPredict', vertexClaudeBody({ tools, tool_choice: { type: 'tool', name: 'get_weather' } }));
    expect(await response.json()).toMatchObject({ stop_reason: 'tool_use', content: [{ type: 'tool_use', name: 'get_weather', input: { city: 'w0' } }] });
  });

  it.each([
    ['without anthropic_version', { anthropic_version: undefined }, 'anthropic_version: Field required'],
    ['with another anthropic_version', { anthropic_version: '2023-06-01' }, "anthropic_version: Input should be 'vertex-2023-10-16'"],
    ['with a model in the body', { model: 'claude-sonnet-4-5' }, 'model: Extra inputs are not permitted'],
  ])('refuses a body %s with Anthropic\'s 400', async (_, extra, message) => {
    const response = await claude('claude-sonnet-4-5@20250929', 'rawPredict', vertexClaudeBody(extra));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message } });
    expect(mock.attempts[0]!.outcome).toBe('invalid_request');
  });

  it.each([
    [400, 'anthropic', 'invalid_request_error'],
    [401, 'google', 'UNAUTHENTICATED'],
    [403, 'google', 'PERMISSION_DENIED'],
    [404, 'google', 'NOT_FOUND'],
    [429, 'google', 'RESOURCE_EXHAUSTED'],
    [500, 'anthropic', 'api_error'],
    [503, 'google', 'UNAVAILABLE'],
    [529, 'anthropic', 'overloaded_error'],
  ])('answers status=%i in the form of whoever gives it on Vertex (%s: %s)', async (status, form, kind) => {
    const response = await claude(`claude-sonnet-4-5@20250929?status=${status}`);
    expect(response.status).toBe(status);
    const body = (await response.json()) as Record<string, { type?: string; status?: string; code?: number }>;
    if (form === 'anthropic') expect(body).toMatchObject({ type: 'error', error: { type: kind } });
    else expect(body.error).toMatchObject({ code: status, status: kind });
  });

  it('names the Vertex resource in its 404 and the base model in its quota 429', async () => {
    const notFound = (await (await claude('claude-gone@1?status=404')).json()) as GoogleError;
    expect(notFound.error.message).toContain('Publisher Model `projects/proj-1/locations/us-east5/publishers/anthropic/models/claude-gone@1` was not found');
    const quota = (await (await claude('claude-sonnet-4-5@20250929?error=rate_limit')).json()) as GoogleError;
    expect(quota.error.message).toContain('online_prediction_input_tokens_per_minute_per_base_model with base model: anthropic-claude-sonnet-4-5.');
  });

  it('tells a per-day quota from a per-minute one, with the region in its ErrorInfo', async () => {
    const response = await postJson(`${mock.url}${vertexPath('anthropic', 'claude-sonnet-4-5@20250929?error=spend_cap', 'rawPredict', 'europe-west1')}`, vertexClaudeBody(), {
      headers: auth,
    });
    const body = (await response.json()) as GoogleError;
    expect(response.status).toBe(429);
    expect(body.error.message).toContain('_per_day_');
    expect(body.error.details?.[0]).toMatchObject({ reason: 'RATE_LIMIT_EXCEEDED', metadata: { quota_location: 'europe-west1', quota_limit: expect.stringContaining('PerDay') as unknown } });
  });

  it('puts a retry hint in a RetryInfo detail on platform errors and in retry-after on the model layer\'s', async () => {
    const platform = await claude('claude-sonnet-4-5@20250929?status=429&retry_after=7');
    expect(platform.headers.get('retry-after')).toBeNull();
    expect(((await platform.json()) as GoogleError).error.details).toContainEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' });
    const modelLayer = await claude('claude-sonnet-4-5@20250929?error=overloaded&retry_after=7');
    expect(modelLayer.status).toBe(529);
    expect(modelLayer.headers.get('retry-after')).toBe('7');
  });

  it('acts out stream faults: a cut stream and an in-band overload', async () => {
    const cut = await readBody(await claude('claude-sonnet-4-5@20250929?chunks=5&cut_after=2', 'streamRawPredict'));
    expect(cut.error).toBeDefined();
    expect(anthropicText(parseFrames(cut.text))).toBe(mockAnswerText(2));
    const inband = await readBody(await claude('claude-sonnet-4-5@20250929?chunks=5&inband_error=overloaded&error_after=1', 'streamRawPredict'));
    expect(parseFrames(inband.text).at(-1)).toEqual({ event: 'error', data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' });
  });

  it('serves only rawPredict and streamRawPredict for the anthropic publisher', async () => {
    expect((await claude('claude-sonnet-4-5@20250929', 'generateContent')).status).toBe(404);
    expect(mock.attempts).toEqual([]);
  });
});

describe('Gemini on Vertex', () => {
  it('answers generateContent with Vertex\'s createTime and trafficType', async () => {
    const response = await gemini('gemini-2.5-flash?chunks=2');
    expect(response.status).toBe(200);
    const answer = (await response.json()) as Record<string, unknown>;
    expect(answer).toMatchObject({
      candidates: [{ content: { parts: [{ text: mockAnswerText(2) }], role: 'model' }, finishReason: 'STOP' }],
      usageMetadata: { candidatesTokenCount: 2, trafficType: 'ON_DEMAND', candidatesTokensDetails: [{ modality: 'TEXT', tokenCount: 2 }] },
      modelVersion: 'gemini-2.5-flash',
      createTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
    });
    expect(mock.attempts[0]).toMatchObject({ home: 'vertex', dialect: 'gemini' });
  });

  it('streams streamGenerateContent?alt=sse with the counts only in the finishing chunk', async () => {
    const read = await readBody(await gemini('gemini-2.5-flash?chunks=3', 'streamGenerateContent?alt=sse'));
    const chunks = geminiChunks(read.text).map((chunk) => JSON.parse(chunk) as GeminiChunk);
    expect(geminiText(geminiChunks(read.text))).toBe(mockAnswerText(3));
    expect(chunks.slice(0, -1).map((chunk) => chunk.usageMetadata)).toEqual(Array(3).fill({ trafficType: 'ON_DEMAND' }));
    expect(chunks.at(-1)!.usageMetadata).toMatchObject({ candidatesTokenCount: 3, trafficType: 'ON_DEMAND' });
  });

  it('refuses streamGenerateContent without alt=sse', async () => {
    expect((await gemini('gemini-2.5-flash', 'streamGenerateContent')).status).toBe(400);
  });

  it.each([
    [400, 'INVALID_ARGUMENT'],
    [401, 'UNAUTHENTICATED'],
    [403, 'PERMISSION_DENIED'],
    [404, 'NOT_FOUND'],
    [429, 'RESOURCE_EXHAUSTED'],
    [500, 'INTERNAL'],
    [503, 'UNAVAILABLE'],
    [502, 'INTERNAL'],
  ])('answers status=%i with a google.rpc %s', async (status, rpcStatus) => {
    const response = await gemini(`gemini-2.5-flash?status=${status}`);
    expect(response.status).toBe(status);
    expect(((await response.json()) as GoogleError).error).toMatchObject({ code: status, status: rpcStatus });
  });

  it('answers rate_limit with the shared-capacity 429, which names no quota', async () => {
    const body = (await (await gemini('gemini-2.5-flash?error=rate_limit')).json()) as GoogleError;
    expect(body.error.message).toMatch(/^Resource exhausted\. Please try again later\./);
  });

  it('answers content_policy with a blocked prompt, not an error', async () => {
    const response = await gemini('gemini-2.5-flash?error=content_policy');
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ promptFeedback: { blockReason: 'SAFETY' } });
  });

  it('acts out a degraded answer and an in-band error', async () => {
    const degraded = (await (await gemini('gemini-2.5-flash?chunks=10&degrade=0.3')).json()) as GeminiChunk;
    expect(degraded.candidates?.[0]?.content.parts[0]?.text).toBe('w0 w1 w2 x3 w4 w5 x6 w7 w8 x9');
    const inband = await readBody(await gemini('gemini-2.5-flash?inband_error=server_error&error_after=1', 'streamGenerateContent?alt=sse'));
    expect(inband.text.endsWith('{"error":{"code":500,"message":"Internal error","status":"INTERNAL"}}\n')).toBe(true);
  });

  it('answers :predict with one embedding per instance, its token count and the characters billed', async () => {
    const body = { instances: [{ content: 'abcdefgh' }, { content: 'xyz' }], parameters: { outputDimensionality: 4 } };
    const response = await gemini('text-embedding-005', 'predict', body);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { predictions: { embeddings: { values: number[]; statistics: unknown } }[]; metadata: unknown };
    expect(answer.predictions.map((prediction) => prediction.embeddings.values.length)).toEqual([4, 4]);
    expect(answer.predictions.map((prediction) => prediction.embeddings.statistics)).toEqual([
      { token_count: 2, truncated: false },
      { token_count: 1, truncated: false },
    ]);
    expect(answer.metadata).toEqual({ billableCharacterCount: 11 });
  });

  it('names the field of a :predict body it cannot serve', async () => {
    const response = await gemini('text-embedding-005', 'predict', { instances: [{ text: 'no content' }] });
    expect(response.status).toBe(400);
    expect(((await response.json()) as GoogleError).error).toMatchObject({ status: 'INVALID_ARGUMENT', message: 'instances[0].content must be a string' });
  });
});
