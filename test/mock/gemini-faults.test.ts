import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockAnswerText, startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import { geminiBody, geminiChunks, geminiPath, geminiText, postJson, readBody, sleep, type GeminiChunk } from './helpers.js';

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

interface GoogleError {
  error: { code: number; message: string; status: string; details?: Record<string, unknown>[] };
}

async function geminiError(model: string, stream = false): Promise<{ status: number; body: GoogleError; headers: Headers }> {
  const response = await postJson(`${mock.url}${geminiPath(model, stream)}`, geminiBody());
  return { status: response.status, body: (await response.json()) as GoogleError, headers: response.headers };
}

function detailTypes(body: GoogleError): unknown[] {
  return (body.error.details ?? []).map((detail) => detail['@type']);
}

async function stream(model: string, idleMs?: number): Promise<Awaited<ReturnType<typeof readBody>>> {
  return readBody(await postJson(`${mock.url}${geminiPath(model, true)}`, geminiBody()), idleMs);
}

describe('Gemini status=N', () => {
  it.each([
    [400, 'INVALID_ARGUMENT'],
    [401, 'UNAUTHENTICATED'],
    [403, 'PERMISSION_DENIED'],
    [404, 'NOT_FOUND'],
    [429, 'RESOURCE_EXHAUSTED'],
    [500, 'INTERNAL'],
    [503, 'UNAVAILABLE'],
    [502, 'INTERNAL'],
  ])('%i answers a google.rpc %s body whose code is the status', async (status, rpcStatus) => {
    const answer = await geminiError(`gemini-mock?status=${status}`);
    expect(answer.status).toBe(status);
    expect(answer.body.error).toMatchObject({ code: status, status: rpcStatus, message: expect.any(String) as unknown });
    expect(answer.headers.get('retry-after')).toBeNull();
  });

  it('names the requested model in the 404', async () => {
    const answer = await geminiError('gemini-gone?status=404');
    expect(answer.body.error.message).toMatch(/^models\/gemini-gone is not found for API version v1beta/);
  });

  it('answers the streaming endpoint with the same JSON error', async () => {
    const answer = await geminiError('gemini-mock?status=503', true);
    expect(answer.status).toBe(503);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.body.error.status).toBe('UNAVAILABLE');
  });
});

describe('Gemini retry hints', () => {
  it('puts retry_after in a RetryInfo detail of the body, not in a header', async () => {
    const answer = await geminiError('gemini-mock?status=429&retry_after=26');
    expect(answer.headers.get('retry-after')).toBeNull();
    expect(answer.body.error.details?.at(-1)).toEqual({
      '@type': 'type.googleapis.com/google.rpc.RetryInfo',
      retryDelay: '26s',
    });
  });

  it('adds RetryInfo to bodies without details too, and takes retry_after_ms as a fractional delay', async () => {
    const answer = await geminiError('gemini-mock?status=503&retry_after_ms=1500');
    expect(answer.body.error.details).toEqual([{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1.5s' }]);
  });

  it('leaves RetryInfo out when no retry directive is given', async () => {
    const answer = await geminiError('gemini-mock?status=429');
    expect(detailTypes(answer.body)).toEqual([
      'type.googleapis.com/google.rpc.QuotaFailure',
      'type.googleapis.com/google.rpc.Help',
    ]);
  });
});

describe('Gemini error=NAME', () => {
  it('answers a credential error as 400 INVALID_ARGUMENT with reason API_KEY_INVALID', async () => {
    const answer = await geminiError('gemini-mock?error=credential');
    expect(answer.status).toBe(400);
    expect(answer.body.error.status).toBe('INVALID_ARGUMENT');
    expect(answer.body.error.details?.[0]).toMatchObject({ reason: 'API_KEY_INVALID' });
  });

  it.each([
    ['rate_limit', 429, 'RESOURCE_EXHAUSTED', /exceeded your current quota/],
    ['insufficient_quota', 429, 'RESOURCE_EXHAUSTED', /exceeded your current quota/],
    ['context_length', 400, 'INVALID_ARGUMENT', /input token count/],
    ['overloaded', 503, 'UNAVAILABLE', /overloaded/],
  ])('%s answers %i %s', async (name, status, rpcStatus, message) => {
    const answer = await geminiError(`gemini-mock?error=${name}`);
    expect(answer.status).toBe(status);
    expect(answer.body.error).toMatchObject({ code: status, status: rpcStatus });
    expect(answer.body.error.message).toMatch(message);
  });

  it('tells an exhausted daily quota from a per-minute limit by its quotaId', async () => {
    const quotaId = async (name: string): Promise<unknown> => {
      const violations = (await geminiError(`gemini-mock?error=${name}`)).body.error.details?.[0]?.violations;
      return (violations as { quotaId: string }[])[0]?.quotaId;
    };
    expect(await quotaId('insufficient_quota')).toMatch(/PerDay/);
    expect(await quotaId('rate_limit')).toMatch(/PerMinute/);
  });

  it('answers content_policy as a 200 blocked prompt: promptFeedback and no candidates', async () => {
    const response = await postJson(`${mock.url}${geminiPath('gemini-mock?error=content_policy')}`, geminiBody());
    expect(response.status).toBe(200);
    const answer = (await response.json()) as GeminiChunk;
    expect(answer.candidates).toBeUndefined();
    expect(answer.promptFeedback?.blockReason).toBe('SAFETY');
    expect(mock.attempts[0]?.outcome).toBe('status 200');
  });

  it('streams the blocked prompt as one SSE chunk', async () => {
    const response = await postJson(`${mock.url}${geminiPath('gemini-mock?error=content_policy', true)}`, geminiBody());
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const chunks = geminiChunks(await response.text()).map((chunk) => JSON.parse(chunk) as GeminiChunk);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.promptFeedback?.blockReason).toBe('SAFETY');
  });
});

describe('Gemini connection faults', () => {
  it('reset destroys the socket before any headers', async () => {
    const failure = await postJson(`${mock.url}${geminiPath('gemini-mock?reset')}`, geminiBody()).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect(mock.attempts[0]?.outcome).toBe('reset');
  });

  it('flap_down_s: down for that long after the first request, then healthy', async () => {
    const model = 'gemini-mock?status=503&flap_down_s=0.3';
    expect((await geminiError(model)).status).toBe(503);
    expect((await geminiError(model)).status).toBe(503);
    await sleep(350);
    expect((await postJson(`${mock.url}${geminiPath(model)}`, geminiBody())).status).toBe(200);
  });

  it('times=N through the x-mock header', async () => {
    const send = async (): Promise<number> =>
      (await postJson(`${mock.url}${geminiPath('gemini-mock')}`, geminiBody(), { headers: { 'x-mock': 'status=500&times=1' } }))
        .status;
    expect([await send(), await send()]).toEqual([500, 200]);
  });
});

describe('Gemini stream faults', () => {
  it('sends headers at once and the first chunk after first_token_ms', async () => {
    const startedAt = performance.now();
    const response = await postJson(`${mock.url}${geminiPath('gemini-mock?first_token_ms=300&chunks=2', true)}`, geminiBody());
    // The headers came on their own (the response resolved before the body), the chunk not before
    // first_token_ms from the request (a timer never fires early); no clock a loaded machine stretches.
    const headersAtMs = performance.now() - startedAt;
    const read = await readBody(response);
    expect(headersAtMs + read.arrivalsMs.at(-1)!).toBeGreaterThanOrEqual(250);
    expect(geminiText(geminiChunks(read.text))).toBe(mockAnswerText(2));
  });

  it('cut_after=N: exactly N chunks, no finishing chunk, a dead connection', async () => {
    const read = await stream('gemini-mock?cut_after=2&chunks=5');
    expect(read.error).toBeDefined();
    const chunks = geminiChunks(read.text);
    expect(chunks).toHaveLength(2);
    expect(geminiText(chunks)).toBe(mockAnswerText(2));
    expect(read.text).not.toContain('finishReason');
    expect(mock.attempts[0]?.outcome).toBe('cut');
  });

  it('cut_after past the last piece still withholds the finishing chunk', async () => {
    const read = await stream('gemini-mock?cut_after=3&chunks=3');
    expect(read.error).toBeDefined();
    expect(geminiChunks(read.text)).toHaveLength(3);
    expect(read.text).not.toContain('finishReason');
  });

  it('cuts a tool call before its only chunk, after the 200 headers', async () => {
    const response = await postJson(`${mock.url}${geminiPath('gemini-mock?tool_call=f&cut_after=0', true)}`, geminiBody());
    expect(response.status).toBe(200);
    const read = await readBody(response);
    expect(read.error).toBeDefined();
    expect(read.text).toBe('');
  });

  it('stall_after=N: N chunks, then an open, silent connection', async () => {
    const read = await stream('gemini-mock?stall_after=1', 400);
    expect(read.idle).toBe(true);
    expect(geminiText(geminiChunks(read.text))).toBe(mockAnswerText(1));
  });

  it.each([
    ['server_error', { error: { code: 500, message: 'Internal error', status: 'INTERNAL' } }],
    ['overloaded', { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } }],
  ])('inband_error=%s: a bare error object after error_after chunks, without data: or a finish', async (kind, error) => {
    const read = await stream(`gemini-mock?inband_error=${kind}&error_after=1`);
    expect(read.ended).toBe(true);
    const chunks = geminiChunks(read.text);
    expect(geminiText(chunks)).toBe(mockAnswerText(1));
    const rest = read.text.slice(read.text.lastIndexOf('\r\n\r\n') + 4);
    expect(JSON.parse(rest)).toEqual(error);
    expect(read.text).not.toContain('finishReason');
    expect(mock.attempts[0]?.outcome).toBe('inband_error');
  });

  it('with chunk_ms the in-band error comes in a read of its own, as clients that parse each read expect', async () => {
    const read = await stream('gemini-mock?inband_error=server_error&error_after=1&chunk_ms=50');
    expect(read.arrivalsMs).toHaveLength(2);
    expect(JSON.parse(read.text.slice(read.text.lastIndexOf('\r\n\r\n') + 4))).toMatchObject({ error: { code: 500 } });
  });

  it('malformed_after=N: one data event that is not JSON, then the stream goes on', async () => {
    const read = await stream('gemini-mock?malformed_after=1&chunks=2');
    const chunks = geminiChunks(read.text);
    expect(chunks[1]).toBe('{"candidates": [');
    const intact = chunks.filter((_, index) => index !== 1);
    expect(geminiText(intact)).toBe(mockAnswerText(2));
    expect(JSON.parse(intact.at(-1)!)).toMatchObject({ candidates: [{ finishReason: 'STOP' }] });
  });

  it('no_done changes nothing: a Gemini stream has no terminator to leave out', async () => {
    const normal = await stream('gemini-mock?chunks=2');
    mock.reset();
    const noDone = await stream('gemini-mock?chunks=2&no_done');
    expect(noDone.text).toBe(normal.text);
  });
});
