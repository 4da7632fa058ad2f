import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  no-retry:
    retries: 0
    targets:
      - { connection: mock-openai, model: "primary-a?status=503" }
      - { connection: mock-anthropic, model: standby-a }
  one-retry:
    retries: 1
    backoff: { base_ms: 10, max_ms: 20 }
    targets:
      - { connection: mock-openai, model: "primary-b?status=503" }
      - { connection: mock-openai, model: standby-b }
  all-down:
    retries: 0
    targets:
      - { connection: mock-openai, model: "down-1?status=503" }
      - { connection: mock-anthropic, model: "down-2?status=529" }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const ask = (model: string, stream = false) => postChat(gateway.url, { model, stream, messages: [{ role: 'user', content: 'hi' }] });

describe('failover to the next target on a 503 before the response starts', () => {
  it.each([false, true])('serves from the standby (stream: %s) and the caller sees only its answer', async (stream) => {
    const response = await ask('no-retry', stream);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/standby-a');
    expect(response.headers.get('x-switchyard-attempts')).toBe('2');
    const body = await response.text();
    expect(body).toContain(stream ? 'data: [DONE]' : mockAnswerText(8));
    expect(body).not.toContain('primary-a');
    expect(gateway.mock.attemptsFor('primary-a')).toHaveLength(1);
    expect(gateway.mock.attemptsFor('standby-a')).toHaveLength(1);
  });

  it('retries the same target first when the route allows a retry for server errors', async () => {
    const response = await ask('one-retry');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-attempts')).toBe('3');
    expect(gateway.mock.attemptsFor('primary-b')).toHaveLength(2);
    expect(gateway.mock.attemptsFor('standby-b')).toHaveLength(1);
  });

  it('answers 502 naming every attempt when every target fails', async () => {
    const response = await ask('all-down');
    expect(response.status).toBe(502);
    // Server errors pass: the caller is told when asking again may work.
    expect(response.headers.get('retry-after')).toBe('2');
    expect(response.headers.get('x-should-retry')).toBeNull();
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    const body = (await response.json()) as { error: { code: string; request_id: string; attempts: { target: string; kind: string; status: number }[] } };
    expect(body.error.code).toBe('upstream_error');
    expect(body.error.request_id).toBe(response.headers.get('x-request-id'));
    expect(body.error.attempts.map((attempt) => [attempt.target, attempt.kind, attempt.status])).toEqual([
      ['mock-openai/down-1?status=503', 'server_error', 503],
      ['mock-anthropic/down-2?status=529', 'server_error', 529],
    ]);
  });
});
