import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { sseData } from '../scenario-helpers.js';

let gateway: TestGateway;

// Two silent targets: every attempt times out, after the heartbeat sent the 200 (or, with the
// heartbeat out of reach, before anything was sent). Never ejected, so each request tries both.
const SILENT_TARGETS = `
    health: { consecutive_failures: 100, min_requests: 100 }
    targets:
      - { connection: mock-openai, model: "silent-one?first_token_ms=10000" }
      - { connection: mock-anthropic, model: "silent-two?first_token_ms=10000" }`;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  after-heartbeat:
    retries: 0
    timeouts: { heartbeat_ms: 100, first_token_ms: 500 }${SILENT_TARGETS}
  before-heartbeat:
    retries: 0
    timeouts: { heartbeat_ms: 60000, first_token_ms: 500 }${SILENT_TARGETS}
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

interface ErrorObject {
  type: string;
  message: string;
  request_id?: string;
  attempts?: { n: number; target: string; kind: string; status: number | null; latency_ms: number }[];
}

const dialects = [
  {
    name: 'OpenAI Chat',
    path: '/v1/chat/completions',
    body: (model: string) => ({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    inBand: (sse: string) => sseData(sse).map((data) => JSON.parse(data) as { error?: ErrorObject }).find((payload) => payload.error)!.error!,
    httpError: (body: { error: ErrorObject }) => ({ error: body.error, requestId: body.error.request_id }),
  },
  {
    name: 'Anthropic Messages',
    path: '/v1/messages',
    body: (model: string) => ({ model, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    inBand: (sse: string) => sseData(sse).map((data) => JSON.parse(data) as { type: string; error?: ErrorObject }).find((payload) => payload.type === 'error')!.error!,
    httpError: (body: { error: ErrorObject; request_id: string }) => ({ error: body.error, requestId: body.request_id }),
  },
  {
    name: 'OpenAI Responses',
    path: '/v1/responses',
    body: (model: string) => ({ model, stream: true, input: 'hi' }),
    inBand: (sse: string) => sseData(sse).map((data) => JSON.parse(data) as { type: string; error?: ErrorObject }).find((payload) => payload.type === 'error')!.error!,
    httpError: (body: { error: ErrorObject }) => ({ error: body.error, requestId: body.error.request_id }),
  },
];

describe.each(dialects)('$name', (dialect) => {
  const post = (model: string) =>
    fetch(`${gateway.url}${dialect.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(dialect.body(model)),
      signal: AbortSignal.timeout(10_000),
    });

  it('the in-band error carries the request id and every attempt, as the HTTP error of the same failure does', async () => {
    const inBandResponse = await post('after-heartbeat');
    expect(inBandResponse.status).toBe(200);
    const sse = await inBandResponse.text();
    expect(sse).toContain(': keep-alive');
    const inBand = dialect.inBand(sse);

    const httpResponse = await post('before-heartbeat');
    expect(httpResponse.status).toBe(504);
    const http = dialect.httpError((await httpResponse.json()) as never);

    expect(inBand.request_id).toBe(inBandResponse.headers.get('x-request-id'));
    expect(http.requestId).toBe(httpResponse.headers.get('x-request-id'));
    const shape = (attempts: ErrorObject['attempts']) => attempts?.map(({ n, target, kind, status }) => ({ n, target, kind, status }));
    expect(shape(inBand.attempts)).toEqual([
      { n: 1, target: 'mock-openai/silent-one?first_token_ms=10000', kind: 'timeout', status: 200 },
      { n: 2, target: 'mock-anthropic/silent-two?first_token_ms=10000', kind: 'timeout', status: 200 },
    ]);
    expect(shape(inBand.attempts)).toEqual(shape(http.error.attempts));
    expect(inBand.attempts!.every((attempt) => attempt.latency_ms >= 400)).toBe(true);
    expect(inBand.message).toBe(http.error.message);
    expect(gateway.mock.attemptsFor('silent-one')).toHaveLength(2);
    expect(gateway.mock.attemptsFor('silent-two')).toHaveLength(2);
  });
});
