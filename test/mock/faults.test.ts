import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockAnswerText, startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import {
  anthropicText,
  chatBody,
  chatPath,
  messagesBody,
  messagesPath,
  openaiContentChunks,
  openaiText,
  parseFrames,
  postJson,
  readBody,
  sleep,
} from './helpers.js';

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

interface OpenaiError {
  error: { message: string; type: string | null; param: string | null; code: string | null };
}
interface AnthropicError {
  type: 'error';
  error: { type: string; message: string; details?: { error_code: string } };
}

async function openaiError(model: string): Promise<{ status: number; body: OpenaiError; headers: Headers }> {
  const response = await postJson(`${mock.url}${chatPath}`, chatBody(model));
  return { status: response.status, body: (await response.json()) as OpenaiError, headers: response.headers };
}

async function anthropicError(model: string): Promise<{ status: number; body: AnthropicError; headers: Headers }> {
  const response = await postJson(`${mock.url}${messagesPath}`, messagesBody(model));
  return { status: response.status, body: (await response.json()) as AnthropicError, headers: response.headers };
}

describe('status=N', () => {
  it.each([
    [400, 'invalid_request_error', 'unsupported_parameter'],
    [401, 'invalid_request_error', 'invalid_api_key'],
    [403, 'request_forbidden', 'unsupported_country_region_territory'],
    [404, 'invalid_request_error', 'model_not_found'],
    [429, 'tokens', 'rate_limit_exceeded'],
    [500, 'server_error', null],
    [503, 'server_error', null],
    [502, 'server_error', null],
  ])('OpenAI %i answers type %s, code %s', async (status, type, code) => {
    const answer = await openaiError(`gpt-mock?status=${status}`);
    expect(answer.status).toBe(status);
    expect(answer.body.error).toMatchObject({ type, code });
    expect(Object.keys(answer.body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(answer.headers.get('retry-after')).toBeNull();
  });

  it('names the requested model in the OpenAI 404', async () => {
    const answer = await openaiError('gpt-missing?status=404');
    expect(answer.body.error.message).toBe('The model `gpt-missing` does not exist or you do not have access to it.');
  });

  it('says 503 overloaded in OpenAI words', async () => {
    expect((await openaiError('gpt-mock?status=503')).body.error.message).toMatch(/overloaded/);
  });

  it.each([
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [403, 'permission_error'],
    [404, 'not_found_error'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [529, 'overloaded_error'],
    [503, 'api_error'],
  ])('Anthropic %i answers %s', async (status, type) => {
    const answer = await anthropicError(`claude-mock?status=${status}`);
    expect(answer.status).toBe(status);
    expect(answer.body.type).toBe('error');
    expect(answer.body.error.type).toBe(type);
    expect(typeof answer.body.error.message).toBe('string');
  });

  it('names the requested model in the Anthropic 404', async () => {
    expect((await anthropicError('claude-gone?status=404')).body.error.message).toBe('model: claude-gone');
  });
});

describe('error=NAME', () => {
  it.each([
    ['insufficient_quota', 429, 'insufficient_quota', 'insufficient_quota'],
    ['context_length', 400, 'invalid_request_error', 'context_length_exceeded'],
    ['content_policy', 400, 'invalid_request_error', 'invalid_prompt'],
    ['rate_limit', 429, 'tokens', 'rate_limit_exceeded'],
    ['overloaded', 503, 'server_error', null],
    ['spend_cap', 429, 'insufficient_quota', 'insufficient_quota'],
    ['credential', 401, 'invalid_request_error', 'invalid_api_key'],
  ])('OpenAI %s answers %i', async (name, status, type, code) => {
    const answer = await openaiError(`gpt-mock?error=${name}`);
    expect(answer.status).toBe(status);
    expect(answer.body.error).toMatchObject({ type, code });
  });

  it.each([
    ['spend_cap', 429, 'rate_limit_error', /usage limits/],
    ['spend_limit', 400, 'invalid_request_error', /usage limits/],
    ['context_length', 400, 'invalid_request_error', /prompt is too long/],
    ['rate_limit', 429, 'rate_limit_error', /rate limit/],
    ['overloaded', 529, 'overloaded_error', /Overloaded/],
    ['insufficient_quota', 429, 'rate_limit_error', /usage limits/],
    ['content_policy', 400, 'invalid_request_error', /content filtering/],
    ['credential', 401, 'authentication_error', /invalid x-api-key/],
  ])('Anthropic %s answers %i', async (name, status, type, message) => {
    const answer = await anthropicError(`claude-mock?error=${name}`);
    expect(answer.status).toBe(status);
    expect(answer.body.error.type).toBe(type);
    expect(answer.body.error.message).toMatch(message);
  });

  it('marks the Anthropic spend cap with its error code and no retry-after', async () => {
    const answer = await anthropicError('claude-mock?error=spend_cap');
    expect(answer.body.error.details).toEqual({ error_code: 'enforced_spend_limit_reached' });
    expect(answer.headers.get('retry-after')).toBeNull();
  });

  it('keeps an explicit status over the error name default', async () => {
    const answer = await openaiError('gpt-mock?error=rate_limit&status=503');
    expect(answer.status).toBe(503);
    expect(answer.body.error.code).toBe('rate_limit_exceeded');
  });
});

describe('retry_after and retry_after_ms', () => {
  it('sets retry-after (seconds) and retry-after-ms on the error', async () => {
    const answer = await openaiError('gpt-mock?status=429&retry_after=2&retry_after_ms=1500');
    expect(answer.headers.get('retry-after')).toBe('2');
    expect(answer.headers.get('retry-after-ms')).toBe('1500');
    const anthropic = await anthropicError('claude-mock?status=529&retry_after=0.5');
    expect(anthropic.headers.get('retry-after')).toBe('0.5');
  });
});

describe('times and flap_down_s', () => {
  it('applies the fault to the first N requests with the same model string only', async () => {
    const model = 'gpt-mock?status=503&times=2';
    const statuses: number[] = [];
    for (let index = 0; index < 4; index++) statuses.push((await openaiError(model)).status);
    expect(statuses).toEqual([503, 503, 200, 200]);
    // Another directive source is another counter.
    expect((await openaiError('gpt-mock?status=503&times=2&chunks=1')).status).toBe(503);
    expect(mock.attemptsFor('gpt-mock').map((attempt) => attempt.outcome)).toEqual([
      'status 503',
      'status 503',
      'ok',
      'ok',
      'status 503',
    ]);
  });

  it('counts the x-mock header as part of the directive source', async () => {
    const send = async (header: string): Promise<number> =>
      (await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock'), { headers: { 'x-mock': header } })).status;
    expect(await send('status=500&times=1')).toBe(500);
    expect(await send('status=500&times=1')).toBe(200);
    expect(await send('status=500&times=1&chunks=2')).toBe(500);
  });

  it('is down for flap_down_s after the first request, then healthy', async () => {
    const model = 'gpt-mock?status=503&flap_down_s=0.3';
    expect((await openaiError(model)).status).toBe(503);
    expect((await openaiError(model)).status).toBe(503);
    await sleep(350);
    expect((await openaiError(model)).status).toBe(200);
  });

  it('starts counting again after reset()', async () => {
    const model = 'gpt-mock?status=503&times=1';
    expect((await openaiError(model)).status).toBe(503);
    expect((await openaiError(model)).status).toBe(200);
    mock.reset();
    expect((await openaiError(model)).status).toBe(503);
  });
});

describe('x-mock header', () => {
  it('merges with and overrides the model string directives', async () => {
    const response = await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?status=500&chunks=2'), {
      headers: { 'x-mock': 'status=429&retry_after=1' },
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(mock.attempts.at(-1)?.directives).toEqual({ status: '429', chunks: '2', retry_after: '1' });
  });
});

describe('reset', () => {
  it('destroys the socket before any headers', async () => {
    const failure = await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?reset')).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    const cause = (failure as TypeError).cause as { code?: string };
    expect(cause.code).toMatch(/ECONNRESET|UND_ERR_SOCKET/);
    expect(mock.attempts).toHaveLength(1);
    expect(mock.attempts[0]?.outcome).toBe('reset');
  });
});

describe('silence', () => {
  it('never answers, so the client times out', async () => {
    const startedAt = performance.now();
    const failure = await postJson(`${mock.url}${messagesPath}`, messagesBody('claude-mock?silence'), {
      signal: AbortSignal.timeout(300),
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((failure as Error).name).toBe('TimeoutError');
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(280);
    expect(mock.attempts[0]?.outcome).toBe('silence');
  });
});

describe('headers_delay_ms and first_token_ms', () => {
  it('holds the headers back for headers_delay_ms', async () => {
    const startedAt = performance.now();
    const response = await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?headers_delay_ms=200', { stream: true }));
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(190);
    expect((await readBody(response)).ended).toBe(true);
  });

  it('sends headers and the role chunk at once and the first content after first_token_ms', async () => {
    const startedAt = performance.now();
    const response = await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?first_token_ms=300&chunks=2', { stream: true }));
    // Headers and the first bytes apart from the content, which waits first_token_ms from the request
    // (a timer never fires early): the order, not a clock a loaded machine stretches, says "at once".
    const headersAtMs = performance.now() - startedAt;
    const read = await readBody(response);
    expect(read.arrivalsMs.length).toBeGreaterThanOrEqual(2);
    expect(headersAtMs + read.arrivalsMs.at(-1)!).toBeGreaterThanOrEqual(250);
    expect(openaiText(parseFrames(read.text))).toBe(mockAnswerText(2));
  });

  it('delays the whole non-streaming answer by first_token_ms', async () => {
    const startedAt = performance.now();
    const response = await postJson(`${mock.url}${messagesPath}`, messagesBody('claude-mock?first_token_ms=200'));
    expect(response.status).toBe(200);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(190);
  });
});

describe('chunks and chunk_ms', () => {
  it('paces content chunks chunk_ms apart', async () => {
    const startedAt = performance.now();
    const read = await readBody(
      await postJson(`${mock.url}${messagesPath}`, messagesBody('claude-mock?chunks=4&chunk_ms=60', { stream: true })),
    );
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(170);
    expect(read.arrivalsMs.length).toBeGreaterThanOrEqual(4);
    expect(anthropicText(parseFrames(read.text))).toBe(mockAnswerText(4));
  });
});

describe('cut_after', () => {
  it('OpenAI: exactly N content chunks, then a dead connection without finish or [DONE]', async () => {
    const read = await readBody(await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?cut_after=3', { stream: true })));
    expect(read.error).toBeDefined();
    const frames = parseFrames(read.text);
    expect(openaiContentChunks(frames)).toBe(3);
    expect(openaiText(frames)).toBe(mockAnswerText(3));
    expect(frames.some((frame) => frame.data === '[DONE]' || frame.data.includes('"finish_reason":"stop"'))).toBe(false);
    expect(mock.attempts[0]?.outcome).toBe('cut');
  });

  it('Anthropic: N deltas and no message_stop', async () => {
    const read = await readBody(
      await postJson(`${mock.url}${messagesPath}`, messagesBody('claude-mock?cut_after=2&chunk_ms=10', { stream: true })),
    );
    expect(read.error).toBeDefined();
    const frames = parseFrames(read.text);
    expect(frames.map((frame) => frame.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
    ]);
  });

  it('cuts at position 0 only after first_token_ms, when the first content was due', async () => {
    const startedAt = performance.now();
    const response = await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?cut_after=0&first_token_ms=200', { stream: true }));
    const read = await readBody(response);
    expect(read.error).toBeDefined();
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(190);
  });

  it('cut_after=0 leaves only the role chunk', async () => {
    const read = await readBody(await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?cut_after=0', { stream: true })));
    expect(read.error).toBeDefined();
    expect(parseFrames(read.text)).toHaveLength(1);
  });
});

describe('stall_after', () => {
  it('sends N content chunks and then nothing, with the connection still open', async () => {
    const read = await readBody(
      await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?stall_after=2', { stream: true })),
      400,
    );
    expect(read.idle).toBe(true);
    expect(read.ended).toBe(false);
    expect(read.error).toBeUndefined();
    expect(openaiText(parseFrames(read.text))).toBe(mockAnswerText(2));
    expect(mock.attempts[0]?.outcome).toBe('stall');
  });
});

describe('inband_error', () => {
  it('OpenAI: the error as a data event after the role chunk, no [DONE]', async () => {
    const read = await readBody(
      await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?inband_error=server_error', { stream: true })),
    );
    expect(read.ended).toBe(true);
    const frames = parseFrames(read.text);
    expect(frames).toHaveLength(2);
    expect(JSON.parse(frames[0]!.data)).toMatchObject({ choices: [{ delta: { role: 'assistant' } }] });
    const error = JSON.parse(frames[1]!.data) as OpenaiError;
    expect(Object.keys(error)).toEqual(['error']);
    expect(error.error).toEqual({ message: expect.any(String) as unknown, type: 'server_error', param: null, code: null });
    expect(mock.attempts[0]?.outcome).toBe('inband_error');
  });

  it('OpenAI: after error_after content chunks', async () => {
    const read = await readBody(
      await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?inband_error=overloaded&error_after=2', { stream: true })),
    );
    const frames = parseFrames(read.text);
    expect(openaiContentChunks(frames.slice(0, -1))).toBe(2);
    expect((JSON.parse(frames.at(-1)!.data) as OpenaiError).error.message).toMatch(/overloaded/);
    expect(frames.some((frame) => frame.data === '[DONE]')).toBe(false);
  });

  it.each([
    ['overloaded', 'overloaded_error'],
    ['server_error', 'api_error'],
  ])('Anthropic %s: message_start first, then event: error with %s, no message_stop', async (kind, type) => {
    const read = await readBody(
      await postJson(`${mock.url}${messagesPath}`, messagesBody(`claude-mock?inband_error=${kind}`, { stream: true })),
    );
    const frames = parseFrames(read.text);
    expect(frames[0]?.event).toBe('message_start');
    expect(frames.at(-1)?.event).toBe('error');
    expect(JSON.parse(frames.at(-1)!.data)).toEqual({ type: 'error', error: { type, message: expect.any(String) as unknown } });
    expect(frames.some((frame) => frame.event === 'content_block_delta' || frame.event === 'message_stop')).toBe(false);
  });

  it('Anthropic: after error_after deltas', async () => {
    const read = await readBody(
      await postJson(
        `${mock.url}${messagesPath}`,
        messagesBody('claude-mock?inband_error=overloaded&error_after=1', { stream: true }),
      ),
    );
    const events = parseFrames(read.text).map((frame) => frame.event);
    expect(events).toEqual(['message_start', 'content_block_start', 'ping', 'content_block_delta', 'error']);
  });
});

describe('malformed_after', () => {
  it('inserts one non-JSON event after N chunks and then completes', async () => {
    const read = await readBody(
      await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?malformed_after=1&chunks=3', { stream: true })),
    );
    const frames = parseFrames(read.text);
    const broken = frames.findIndex((frame) => frame.data === '{"choices": [');
    expect(broken).toBe(2);
    expect(frames.at(-1)?.data).toBe('[DONE]');
    const intact = frames.filter((_, index) => index !== broken);
    expect(openaiText(intact)).toBe(mockAnswerText(3));
  });

  it('does the same in the Anthropic stream', async () => {
    const read = await readBody(
      await postJson(`${mock.url}${messagesPath}`, messagesBody('claude-mock?malformed_after=0&chunks=2', { stream: true })),
    );
    const frames = parseFrames(read.text);
    expect(frames[3]).toEqual({ event: 'content_block_delta', data: '{"choices": [' });
    expect(frames.at(-1)?.event).toBe('message_stop');
  });
});

describe('no_done', () => {
  it('OpenAI: ends normally after finish and usage, without [DONE]', async () => {
    const body = chatBody('gpt-mock?no_done&chunks=2', { stream: true, stream_options: { include_usage: true } });
    const read = await readBody(await postJson(`${mock.url}${chatPath}`, body));
    expect(read.ended).toBe(true);
    const frames = parseFrames(read.text);
    expect(frames.some((frame) => frame.data === '[DONE]')).toBe(false);
    expect(JSON.parse(frames.at(-1)!.data)).toMatchObject({ choices: [], usage: { completion_tokens: 2 } });
  });

  it('Anthropic: ends after message_delta without message_stop', async () => {
    const read = await readBody(
      await postJson(`${mock.url}${messagesPath}`, messagesBody('claude-mock?no_done', { stream: true })),
    );
    expect(read.ended).toBe(true);
    expect(parseFrames(read.text).at(-1)?.event).toBe('message_delta');
  });
});

describe('finish', () => {
  it.each(['length', 'content_filter', 'stop'])('reports finish_reason %s in the stream', async (finish) => {
    const read = await readBody(
      await postJson(`${mock.url}${chatPath}`, chatBody(`gpt-mock?finish=${finish}`, { stream: true })),
    );
    const frames = parseFrames(read.text);
    expect(JSON.parse(frames.at(-2)!.data)).toMatchObject({ choices: [{ delta: {}, finish_reason: finish }] });
  });
});

describe('ratelimit', () => {
  it('adds the OpenAI x-ratelimit-* headers', async () => {
    const response = await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?ratelimit=100&remaining=7'));
    const headers = Object.fromEntries(
      [...response.headers].filter(([name]) => name.startsWith('x-ratelimit-')),
    );
    expect(headers).toEqual({
      'x-ratelimit-limit-requests': '100',
      'x-ratelimit-remaining-requests': '7',
      'x-ratelimit-reset-requests': '1m0s',
      'x-ratelimit-limit-tokens': '100',
      'x-ratelimit-remaining-tokens': '7',
      'x-ratelimit-reset-tokens': '1m0s',
    });
  });

  it('adds the Anthropic anthropic-ratelimit-* headers with RFC 3339 resets, also on errors', async () => {
    const before = Date.now();
    const response = await postJson(
      `${mock.url}${messagesPath}`,
      messagesBody('claude-mock?ratelimit=50&ratelimit_reset_s=30&status=429'),
    );
    expect(response.status).toBe(429);
    expect(response.headers.get('anthropic-ratelimit-requests-limit')).toBe('50');
    expect(response.headers.get('anthropic-ratelimit-requests-remaining')).toBe('49');
    const reset = response.headers.get('anthropic-ratelimit-requests-reset')!;
    expect(reset).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const resetMs = Date.parse(reset) - before;
    expect(resetMs).toBeGreaterThanOrEqual(29_000);
    expect(resetMs).toBeLessThanOrEqual(32_000);
    for (const family of ['tokens', 'input-tokens', 'output-tokens']) {
      expect(response.headers.get(`anthropic-ratelimit-${family}-limit`)).toBe('50');
    }
  });

  it('applies to healthy answers outside the fault window too', async () => {
    const model = 'gpt-mock?ratelimit=10&remaining=0&status=429&times=1';
    expect((await openaiError(model)).headers.get('x-ratelimit-remaining-requests')).toBe('0');
    const healthy = await openaiError(model);
    expect(healthy.status).toBe(200);
    expect(healthy.headers.get('x-ratelimit-remaining-requests')).toBe('0');
  });
});

describe('requests the mock cannot serve', () => {
  it('answers invalid JSON with the dialect 400 shape', async () => {
    const openai = await postJson(`${mock.url}${chatPath}`, '{"model": ');
    expect(openai.status).toBe(400);
    expect(((await openai.json()) as OpenaiError).error).toMatchObject({ type: 'invalid_request_error', code: null });
    const anthropic = await postJson(`${mock.url}${messagesPath}`, 'not json');
    expect(anthropic.status).toBe(400);
    expect(((await anthropic.json()) as AnthropicError).error.type).toBe('invalid_request_error');
    expect(mock.attempts.map((attempt) => [attempt.outcome, attempt.body])).toEqual([
      ['invalid_request', '{"model": '],
      ['invalid_request', 'not json'],
    ]);
  });

  it('answers a missing model with a 400', async () => {
    const response = await postJson(`${mock.url}${chatPath}`, { messages: [] });
    expect(response.status).toBe(400);
  });

  it('answers an unknown or ill-formed directive with a 400 that names it', async () => {
    const unknown = await openaiError('gpt-mock?statsu=503');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('statsu');
    const badValue = await anthropicError('claude-mock?error=meltdown');
    expect(badValue.status).toBe(400);
    expect(badValue.body.error.message).toContain('meltdown');
    expect(mock.attempts.map((attempt) => attempt.outcome)).toEqual(['bad_directive', 'bad_directive']);
  });

  it('serves requests without any credentials', async () => {
    const response = await fetch(`${mock.url}${chatPath}`, {
      method: 'POST',
      body: JSON.stringify(chatBody('gpt-mock')),
      signal: AbortSignal.timeout(5_000),
    });
    expect(response.status).toBe(200);
  });
});
