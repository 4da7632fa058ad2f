import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/core/request-record.js';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { socketsDroppedAfterEach, type ResponsesSocketClient } from '../../support/responses-socket.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

let gateway: TestGateway;
const openSocket = socketsDroppedAfterEach();

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  failover:
    retries: 0
    targets:
      - { connection: mock-openai, model: "gpt-down?status=500" }
      - { connection: mock-anthropic, model: claude-up }
  cutting: { targets: [{ connection: mock-openai, model: "gpt-cut?cut_after=3" }] }
  slow: { targets: [{ connection: mock-openai, model: "gpt-slow?chunks=8&chunk_ms=300" }] }
  talk: { targets: [{ connection: mock-openai, model: gpt-talk }] }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());
const socket = (): Promise<ResponsesSocketClient> => openSocket(gateway.url);

async function lastRecord(): Promise<RequestRecord> {
  await gateway.app.records.flush();
  return (await gateway.app.records.list({}))[0]!;
}

it('fails over before the first content without the client seeing it: one clean response, two attempts on the record', async () => {
  const client = await socket();
  const events = await client.turn({ model: 'failover', input: 'hi' });
  expect(events.filter((event) => event.type === 'error' || event.type === 'response.failed')).toEqual([]);
  expect(events.filter((event) => event.type === 'response.created')).toHaveLength(1);
  expect(events.at(-1)).toMatchObject({ type: 'response.completed', response: { status: 'completed', model: 'claude-up' } });
  const record = await lastRecord();
  expect(record).toMatchObject({ transport: 'websocket', status: 'ok', served: { connection: 'mock-anthropic' } });
  expect(record.attempts.map((attempt) => attempt.kind)).toEqual(['server_error', 'ok']);
  // The socket serves its next turn as usual.
  expect((await client.turn({ model: 'talk', input: 'next' })).at(-1)!.type).toBe('response.completed');
});

it('sends the error event and response.failed for a stream cut after its first content, then closes the socket with 1011', async () => {
  const client = await socket();
  const events = await client.turn({ model: 'cutting', input: 'hi' });
  const types = events.map((event) => event.type);
  expect(types).toContain('response.output_text.delta');
  expect(types.slice(-2)).toEqual(['error', 'response.failed']);
  expect(types).not.toContain('response.completed');
  expect(events.at(-2)).toMatchObject({ error: { code: 'stream_interrupted' } });
  expect(events.at(-1)).toMatchObject({ response: { status: 'failed', error: { code: 'stream_interrupted' } } });
  expect(await client.closed).toEqual({ code: 1011, reason: 'the response failed after it began; open a new socket' });
  expect(await lastRecord()).toMatchObject({ transport: 'websocket', status: 'interrupted', http_status: 200, error_code: 'stream_interrupted' });
});

it('runs one response at a time: a second response.create meanwhile gets an error event and the first goes on', async () => {
  const client = await socket();
  client.send({ type: 'response.create', model: 'slow', input: 'first' });
  await client.until('response.output_text.delta');
  client.send({ type: 'response.create', model: 'talk', input: 'second' });
  const refusal = await client.until('error');
  expect(refusal).toMatchObject({ status: 409, error: { code: 'response_in_progress', type: 'invalid_request_error' } });
  const rest = await client.nextTurn();
  expect(rest.at(-1)).toMatchObject({ type: 'response.completed' });
  expect(JSON.stringify(rest.at(-1))).toContain(mockAnswerText(8));
  expect(gateway.mock.attemptsFor('gpt-talk')).toHaveLength(0);
});

it('cancels the upstream attempt when the client closes the socket mid-response, and bills what was produced', async () => {
  const client = await socket();
  client.send({ type: 'response.create', model: 'slow', input: 'long answer' });
  await client.until('response.output_text.delta');
  client.ws.close(1000);
  await client.closed;
  await expect.poll(() => gateway.mock.attemptsFor('gpt-slow')[0]?.outcome, { timeout: 10_000 }).toBe('client_closed');
  await expect.poll(async () => (await lastRecord()).status, { timeout: 10_000 }).toBe('cancelled');
  const record = await lastRecord();
  expect(record).toMatchObject({ transport: 'websocket', http_status: 499 });
  expect(record.attempts[0]!.usage!.output_tokens).toBeGreaterThan(0);
});
