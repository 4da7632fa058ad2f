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
  cut-openai:
    targets:
      - { connection: mock-openai, model: "cut-o?cut_after=3" }
      - { connection: mock-openai, model: standby-o }
  cut-anthropic:
    targets:
      - { connection: mock-anthropic, model: "cut-a?inband_error=overloaded&error_after=3" }
      - { connection: mock-openai, model: standby-a }
`);
  client = openAiClient(gateway.url);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

/** The `event:` names and parsed `data:` of a Responses SSE body. */
function responsesEvents(body: string): { event: string; data: Record<string, unknown> }[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))!.slice('event: '.length);
      const data = JSON.parse(lines.find((line) => line.startsWith('data: '))!.slice('data: '.length)) as Record<string, unknown>;
      return { event, data };
    });
}

describe.each([
  ['cut-openai', 'cut-o', 'standby-o'],
  ['cut-anthropic', 'cut-a', 'standby-a'],
])('%s: a failure after the first content cannot move', (route, primary, standby) => {
  it('makes responses.stream raise after the first chunks, and no second target is contacted', async () => {
    let text = '';
    let raised: unknown;
    try {
      const stream = client.responses.stream({ model: route, input: 'hi' });
      for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
      await stream.finalResponse();
    } catch (error) {
      raised = error;
    }
    expect(raised).toBeInstanceOf(OpenAI.APIError);
    expect(text).toBe(mockAnswerText(3));
    expect(gateway.mock.attemptsFor(primary)).toHaveLength(1);
    expect(gateway.mock.attemptsFor(standby)).toHaveLength(0);
  });

  it('ends the wire stream with an error event, then response.failed, never response.completed', async () => {
    const response = await fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: route, input: 'hi', stream: true }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(response.status).toBe(200);
    const body = await response.text();
    const events = responsesEvents(body);
    expect(events.every(({ event, data }) => data.type === event)).toBe(true);
    expect(events.map(({ data }) => data.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events.map(({ event }) => event)).not.toContain('response.completed');
    expect(body).not.toContain('[DONE]');
    const [error, failed] = events.slice(-2);
    expect(error!.event).toBe('error');
    expect(error!.data.error).toMatchObject({ type: 'stream_interrupted', code: 'stream_interrupted', message: expect.any(String) });
    expect(failed!.event).toBe('response.failed');
    expect(failed!.data.response).toMatchObject({ status: 'failed', error: { code: 'stream_interrupted' }, id: expect.stringMatching(/^resp_/) });

    const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
    expect(record.status).toBe('interrupted');
    expect(record.operation).toBe('responses');
  });
});
