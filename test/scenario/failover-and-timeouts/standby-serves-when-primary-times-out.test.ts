import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { hello, settledOutcome } from '../scenario-helpers.js';

let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  slow-first-token:
    timeouts: { first_token_ms: 300 }
    targets:
      - { connection: mock-openai, model: "slow-primary?first_token_ms=5000" }
      - { connection: mock-anthropic, model: quick-standby }
  silent-primary:
    timeouts: { first_token_ms: 400 }
    targets:
      - { connection: mock-openai, model: "mute-primary?silence" }
      - { connection: mock-anthropic, model: awake-standby }
`);
  client = openAiClient(gateway.url);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

describe('a primary that does not answer in time is left for the standby, inside the caller deadline', () => {
  it('streaming: first_token_ms passes on the primary → the standby streams the whole answer', async () => {
    const deadlineMs = 3_000;
    const startedAt = Date.now();
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'slow-first-token', stream: true, messages: hello }, { headers: { 'x-request-timeout-ms': String(deadlineMs) } })
      .withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    const elapsedMs = Date.now() - startedAt;

    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/quick-standby');
    expect(response.headers.get('x-switchyard-attempts')).toBe('2');
    expect(text).toBe(mockAnswerText(8));
    // The route's first_token_ms (300 ms) bit, not the primary's 5 s; a 200 is inside the deadline,
    // which the gateway enforces (a late answer would be its 504), however loaded the machine.
    expect(elapsedMs).toBeGreaterThanOrEqual(250);

    expect(gateway.mock.attemptsFor('slow-primary')).toHaveLength(1);
    expect(gateway.mock.attemptsFor('quick-standby')).toHaveLength(1);
    // The gateway let go of the slow primary rather than leaving it generating.
    expect(await settledOutcome(gateway.mock.attemptsFor('slow-primary')[0]!)).toBe('client_closed');
  });

  // A non-streamed answer comes whole: its headers must arrive within first_token_ms.
  it('non-streaming: headers not in by first_token_ms on the primary → the standby answers before the deadline', async () => {
    const deadlineMs = 1_500;
    const response = await postChat(gateway.url, { model: 'silent-primary', messages: hello }, { 'x-request-timeout-ms': String(deadlineMs) });
    const body = (await response.json()) as { choices?: { message: { content: string } }[]; error?: unknown };

    expect({ status: response.status, error: body.error }).toEqual({ status: 200, error: undefined });
    expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/awake-standby');
    expect(body.choices![0]!.message.content).toBe(mockAnswerText(8));
    expect(gateway.mock.attemptsFor('mute-primary')).toHaveLength(1);
    expect(gateway.mock.attemptsFor('awake-standby')).toHaveLength(1);
  });
});
