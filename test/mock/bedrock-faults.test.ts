import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockAnswerText, startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import { bedrockBody, bedrockPath, decodeEventStream, eventTypes, postJson, readBody, sleep } from './helpers.js';

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

const coral = 'http://internal.amazon.com/coral/com.amazon.bedrock/';

async function bedrockError(model: string): Promise<{ status: number; body: { message: string }; headers: Headers }> {
  const response = await postJson(`${mock.url}${bedrockPath(model)}`, bedrockBody());
  return { status: response.status, body: (await response.json()) as { message: string }, headers: response.headers };
}

async function stream(model: string, idleMs?: number): Promise<Awaited<ReturnType<typeof readBody>>> {
  return readBody(await postJson(`${mock.url}${bedrockPath(model, true)}`, bedrockBody()), idleMs);
}

function deltaText(messages: ReturnType<typeof decodeEventStream>): string {
  return messages
    .filter((message) => message.headers[':event-type'] === 'contentBlockDelta')
    .map((message) => (JSON.parse(message.payload) as { delta: { text: string } }).delta.text)
    .join('');
}

describe('Bedrock status=N', () => {
  it.each([
    [400, 'ValidationException'],
    [403, 'AccessDeniedException'],
    [404, 'ResourceNotFoundException'],
    [408, 'ModelTimeoutException'],
    [424, 'ModelErrorException'],
    [429, 'ThrottlingException'],
    [500, 'InternalServerException'],
    [503, 'ServiceUnavailableException'],
    [502, 'InternalServerException'],
  ])('%i answers %s in x-amzn-errortype and a {"message"} body', async (status, type) => {
    const answer = await bedrockError(`bedrock-mock?status=${status}`);
    expect(answer.status).toBe(status);
    expect(answer.headers.get('x-amzn-errortype')).toBe(`${type}:${coral}`);
    expect(answer.headers.get('x-amzn-requestid')).toBe('req_mock_1');
    expect(typeof answer.body.message).toBe('string');
    expect(answer.headers.get('retry-after')).toBeNull();
  });

  it('adds retry-after only when a directive asks (Bedrock itself never sends it)', async () => {
    const answer = await bedrockError('bedrock-mock?status=429&retry_after=2&retry_after_ms=1500');
    expect(answer.headers.get('retry-after')).toBe('2');
    expect(answer.headers.get('retry-after-ms')).toBe('1500');
  });

  it('sends no rate-limit headers, as Bedrock has none', async () => {
    const response = await postJson(`${mock.url}${bedrockPath('bedrock-mock?ratelimit=10')}`, bedrockBody());
    expect([...response.headers.keys()].filter((name) => name.includes('ratelimit'))).toEqual([]);
  });
});

describe('Bedrock error=NAME', () => {
  it.each([
    ['rate_limit', 429, 'ThrottlingException', /^Too many tokens, please wait/],
    ['insufficient_quota', 429, 'ThrottlingException', /per day/],
    ['overloaded', 503, 'ServiceUnavailableException', /Too many connections/],
    ['context_length', 400, 'ValidationException', /Input is too long/],
    ['content_policy', 400, 'ValidationException', /content filters/],
  ])('%s answers %i %s', async (name, status, type, message) => {
    const answer = await bedrockError(`bedrock-mock?error=${name}`);
    expect(answer.status).toBe(status);
    expect(answer.headers.get('x-amzn-errortype')).toBe(`${type}:${coral}`);
    expect(answer.body.message).toMatch(message);
  });

  it('answers a credential error as the AWS front door does: 403 UnrecognizedClientException', async () => {
    const answer = await bedrockError('bedrock-mock?error=credential');
    expect(answer.status).toBe(403);
    expect(answer.headers.get('x-amzn-errortype')).toBe(
      'UnrecognizedClientException:http://internal.amazon.com/coral/com.amazon.coral.service/',
    );
    expect(answer.body).toEqual({ message: 'The security token included in the request is invalid.' });
  });

  it('answers the streaming endpoint with the same JSON error before any event', async () => {
    const response = await postJson(`${mock.url}${bedrockPath('bedrock-mock?status=503', true)}`, bedrockBody());
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-amzn-errortype')).toMatch(/^ServiceUnavailableException:/);
  });
});

describe('Bedrock connection faults', () => {
  it('reset destroys the socket before any headers', async () => {
    const failure = await postJson(`${mock.url}${bedrockPath('bedrock-mock?reset', true)}`, bedrockBody()).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect(mock.attempts[0]?.outcome).toBe('reset');
  });

  it('flap_down_s: throttled for that long after the first request, then healthy', async () => {
    const model = 'bedrock-mock?status=429&flap_down_s=0.3';
    expect((await bedrockError(model)).status).toBe(429);
    await sleep(350);
    expect((await postJson(`${mock.url}${bedrockPath(model)}`, bedrockBody())).status).toBe(200);
  });
});

describe('Bedrock stream faults', () => {
  it('sends messageStart at once and the first delta after first_token_ms', async () => {
    const startedAt = performance.now();
    const response = await postJson(`${mock.url}${bedrockPath('bedrock-mock?first_token_ms=300&chunks=2', true)}`, bedrockBody());
    // Headers and the first bytes apart from the content, which waits first_token_ms from the request
    // (a timer never fires early): the order, not a clock a loaded machine stretches, says "at once".
    const headersAtMs = performance.now() - startedAt;
    const read = await readBody(response);
    expect(read.arrivalsMs.length).toBeGreaterThanOrEqual(2);
    expect(headersAtMs + read.arrivalsMs.at(-1)!).toBeGreaterThanOrEqual(250);
    expect(deltaText(decodeEventStream(read.bytes))).toBe(mockAnswerText(2));
  });

  it('cut_after=N: N whole deltas, no messageStop or metadata, a dead connection', async () => {
    const read = await stream('bedrock-mock?cut_after=2&chunks=4');
    expect(read.error).toBeDefined();
    const messages = decodeEventStream(read.bytes);
    expect(eventTypes(messages)).toEqual(['messageStart', 'contentBlockDelta', 'contentBlockDelta']);
    expect(deltaText(messages)).toBe(mockAnswerText(2));
    expect(mock.attempts[0]?.outcome).toBe('cut');
  });

  it('stall_after=N: N deltas, then an open, silent connection', async () => {
    const read = await stream('bedrock-mock?stall_after=1', 400);
    expect(read.idle).toBe(true);
    expect(eventTypes(decodeEventStream(read.bytes))).toEqual(['messageStart', 'contentBlockDelta']);
  });

  it.each([
    ['overloaded', 'serviceUnavailableException', { message: 'Bedrock is unable to process your request.' }],
    ['server_error', 'modelStreamErrorException', { message: expect.any(String) as unknown, originalStatusCode: 500 }],
  ])('inband_error=%s: an exception message (%s) after error_after deltas, then the end', async (kind, type, payload) => {
    const read = await stream(`bedrock-mock?inband_error=${kind}&error_after=1`);
    expect(read.ended).toBe(true);
    const messages = decodeEventStream(read.bytes);
    expect(eventTypes(messages)).toEqual(['messageStart', 'contentBlockDelta', `exception:${type}`]);
    expect(messages[2]?.headers).toEqual({
      ':exception-type': type,
      ':content-type': 'application/json',
      ':message-type': 'exception',
    });
    expect(JSON.parse(messages[2]!.payload)).toEqual(payload);
    expect(mock.attempts[0]?.outcome).toBe('inband_error');
  });

  it('malformed_after=N: one message with valid CRCs whose payload is not JSON, then the stream goes on', async () => {
    const read = await stream('bedrock-mock?malformed_after=1&chunks=2');
    const messages = decodeEventStream(read.bytes);
    expect(messages[2]).toEqual({
      headers: { ':event-type': 'contentBlockDelta', ':content-type': 'application/json', ':message-type': 'event' },
      payload: '{"choices": [',
    });
    expect(deltaText(messages.filter((_, index) => index !== 2))).toBe(mockAnswerText(2));
    expect(eventTypes(messages).at(-1)).toBe('metadata');
  });

  it('no_done: ends after messageStop without the metadata event (and so without usage)', async () => {
    const read = await stream('bedrock-mock?no_done&chunks=1');
    expect(read.ended).toBe(true);
    expect(eventTypes(decodeEventStream(read.bytes))).toEqual([
      'messageStart',
      'contentBlockDelta',
      'contentBlockStop',
      'messageStop',
    ]);
  });
});
