import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { fetchRecord } from '../scenario-helpers.js';

let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: scenario-admin-token }
${MOCK_CONNECTIONS}
routes:
  flaky:
    retries: 0
    targets:
      - { connection: mock-openai, model: "broken?inband_error=server_error&error_after=0" }
      - { connection: mock-anthropic, model: claude-standby }
  down:
    retries: 0
    targets:
      - { connection: mock-anthropic, model: "down?status=503" }
      - { connection: mock-openai, model: gpt-standby }
`);
  client = openAiClient(gateway.url);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

describe.each([
  ['flaky', 'broken', 'claude-standby', 'mock-anthropic'],
  ['down', 'down', 'gpt-standby', 'mock-openai'],
])('route %s: the first target fails before any content', (route, primary, standby, standbyConnection) => {
  it('responses.stream sees one clean answer from the second target; the record shows both attempts', async () => {
    const { data: stream, response } = await client.responses.create({ model: route, input: 'hi', stream: true }).withResponse();
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);

    expect(events.filter((event) => event.type === 'response.created')).toHaveLength(1);
    expect(events[0]!.type).toBe('response.created');
    expect(events.at(-1)!.type).toBe('response.completed');
    const text = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('');
    expect(text).toBe(mockAnswerText(8));
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(completed.response.model).toBe(standby);
    expect(response.headers.get('x-switchyard-served-by')).toBe(`${standbyConnection}/${standby}`);
    expect(response.headers.get('x-switchyard-attempts')).toBe('2');

    expect(gateway.mock.attemptsFor(primary)).toHaveLength(1);
    expect(gateway.mock.attemptsFor(standby)).toHaveLength(1);
    const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
    expect(record.status).toBe('ok');
    expect(record.attempts.map((attempt) => attempt.model)).toEqual([primary === 'broken' ? 'broken?inband_error=server_error&error_after=0' : 'down?status=503', standby]);
  });
});

// The mock's in-band errors are streaming-only; a non-streamed answer fails over from an HTTP 503.
it('responses.create gets the second target’s answer after a 503', async () => {
  const { data: answer, response } = await client.responses.create({ model: 'down', input: 'hi' }).withResponse();
  expect(answer.status).toBe('completed');
  expect(answer.model).toBe('gpt-standby');
  expect(answer.output_text).toBe(mockAnswerText(8));
  expect(response.headers.get('x-switchyard-attempts')).toBe('2');
});
