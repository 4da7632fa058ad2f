import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { settledOutcome } from '../scenario-helpers.js';

let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gateway = await startGateway(`
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
  stall:
    timeouts: { idle_ms: 300 }
    targets:
      - { connection: mock-openai, model: "stall?stall_after=2" }
      - { connection: mock-openai, model: standby-s }
  no-done:
    targets: [{ connection: mock-openai, model: "nodone?no_done=1" }]
  malformed:
    targets: [{ connection: mock-openai, model: "bad?malformed_after=2" }]
`);
  client = openAiClient(gateway.url);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

async function consume(model: string): Promise<{ text: string; error: unknown }> {
  let text = '';
  try {
    for await (const chunk of await client.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] })) {
      text += chunk.choices[0]?.delta.content ?? '';
    }
    return { text, error: undefined };
  } catch (error) {
    return { text, error };
  }
}

describe('after the first content event a failure cannot move', () => {
  it.each([
    ['cut-openai', 'cut-o', 'standby-o'],
    ['cut-anthropic', 'cut-a', 'standby-a'],
  ])('%s: the SDK raises, the caller got only the first chunks, no second target contacted', async (route, primary, standby) => {
    const { text, error } = await consume(route);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(String((error as Error).message)).toMatch(/stream/i);
    expect(text).toBe(mockAnswerText(3));
    expect(gateway.mock.attemptsFor(primary)).toHaveLength(1);
    expect(gateway.mock.attemptsFor(standby)).toHaveLength(0);
  });

  it('ends the stream with an error event and no [DONE] (raw wire)', async () => {
    const response = await postChat(gateway.url, { model: 'cut-openai', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const body = await response.text();
    expect(response.status).toBe(200);
    expect(body).not.toContain('[DONE]');
    const last = body.trim().split('\n\n').at(-1)!;
    expect(JSON.parse(last.slice('data: '.length))).toMatchObject({ error: { type: 'stream_interrupted' } });
  });

  it('a stall past idle_ms interrupts the stream instead of hanging', async () => {
    const startedAt = Date.now();
    const { text, error } = await consume('stall');
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(text).toBe(mockAnswerText(2));
    expect(Date.now() - startedAt).toBeLessThan(3_000);
    expect(gateway.mock.attemptsFor('standby-s')).toHaveLength(0);
  });
});

describe('stream hygiene', () => {
  it('a stream that finished without [DONE] is complete: the gateway sends its own', async () => {
    const response = await postChat(gateway.url, { model: 'no-done', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const body = await response.text();
    expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const { text, error } = await consume('no-done');
    expect(error).toBeUndefined();
    expect(text).toBe(mockAnswerText(8));
  });

  it('a malformed upstream event is skipped, not forwarded', async () => {
    const response = await postChat(gateway.url, { model: 'malformed', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const body = await response.text();
    for (const line of body.split('\n').filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')) {
      expect(() => JSON.parse(line.slice(6))).not.toThrow();
    }
    const { text, error } = await consume('malformed');
    expect(error).toBeUndefined();
    expect(text).toBe(mockAnswerText(8));
  });
});

it('a caller that disconnects mid-stream aborts the upstream at once', async () => {
  const controller = new AbortController();
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-openai/slowstream?chunks=200&chunk_ms=20', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  await reader.read();
  controller.abort();
  // The mock sees its client go away well before the 4 s the whole stream would take.
  const attempt = gateway.mock.attemptsFor('slowstream')[0]!;
  expect(await settledOutcome(attempt, 2_000)).toMatch(/closed|aborted|cancel/i);
});
