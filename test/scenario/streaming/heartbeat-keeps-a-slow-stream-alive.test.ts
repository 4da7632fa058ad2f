import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { countDone, hello, sseContent, sseErrors } from '../scenario-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  slow-but-fine:
    timeouts: { heartbeat_ms: 200, first_token_ms: 2000 }
    targets: [{ connection: mock-openai, model: "thinking?first_token_ms=700" }]
  slow-and-silent:
    retries: 3
    timeouts: { heartbeat_ms: 200, first_token_ms: 600 }
    targets: [{ connection: mock-openai, model: "never-speaks?first_token_ms=10000" }]
  slow-then-standby:
    timeouts: { heartbeat_ms: 200, first_token_ms: 600 }
    targets:
      - { connection: mock-openai, model: "mute-after-headers?first_token_ms=10000" }
      - { connection: mock-anthropic, model: heartbeat-standby }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

/** Streams a request, noting when the headers came and each piece of the body as it was read. */
async function streamWithTimings(model: string) {
  const startedAt = Date.now();
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream: true, messages: hello }),
    signal: AbortSignal.timeout(10_000),
  });
  const headersAfterMs = Date.now() - startedAt;
  const pieces: string[] = [];
  const decoder = new TextDecoder();
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    pieces.push(decoder.decode(value, { stream: true }));
  }
  return { response, headersAfterMs, pieces, body: pieces.join(''), elapsedMs: Date.now() - startedAt };
}

it('a slow first token: 200 and a keep-alive comment go out before any content, then the whole answer', async () => {
  const { response, headersAfterMs, pieces, body } = await streamWithTimings('slow-but-fine');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  // Headers not before the heartbeat (a timer never fires early). How soon after it they go out is
  // a matter of the machine's load: a bench's to measure (bench/README.md, "Time bounds the tests leave to the bench").
  expect(headersAfterMs).toBeGreaterThanOrEqual(150);
  // The keep-alive went out before any content: the first piece read holds it and no data.
  expect(pieces[0]!).toContain(': keep-alive');
  expect(pieces[0]!).not.toContain('data: ');
  expect(body.indexOf(': keep-alive')).toBeLessThan(body.indexOf('data: '));
  expect(sseContent(body)).toBe(mockAnswerText(8));
  expect(sseErrors(body)).toEqual([]);
  expect(countDone(body)).toBe(1);
  expect(gateway.mock.attemptsFor('thinking')).toHaveLength(1);
});

it('the official SDK reads through the keep-alive comments', async () => {
  const client = openAiClient(gateway.url);
  let text = '';
  for await (const chunk of await client.chat.completions.create({ model: 'slow-but-fine', stream: true, messages: hello })) {
    text += chunk.choices[0]?.delta.content ?? '';
  }
  expect(text).toBe(mockAnswerText(8));
  expect(gateway.mock.attemptsFor('thinking')).toHaveLength(1);
});

it('a failover after the heartbeat stays invisible: keep-alive, then only the standby answer', async () => {
  const { response, body } = await streamWithTimings('slow-then-standby');
  expect(response.status).toBe(200);
  expect(body.indexOf(': keep-alive')).toBeGreaterThanOrEqual(0);
  expect(body.indexOf(': keep-alive')).toBeLessThan(body.indexOf('data: '));
  expect(sseContent(body)).toBe(mockAnswerText(8));
  expect(sseErrors(body)).toEqual([]);
  expect(countDone(body)).toBe(1);
  expect(gateway.mock.attemptsFor('mute-after-headers')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('heartbeat-standby')).toHaveLength(1);
});

it('a failure after the heartbeat ends the stream with an in-band error event and no [DONE]', async () => {
  const { response, body, elapsedMs } = await streamWithTimings('slow-and-silent');
  expect(response.status).toBe(200);
  expect(body).toContain(': keep-alive');
  expect(sseContent(body)).toBe('');
  const errors = sseErrors(body);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatchObject({ code: 'upstream_timeout' });
  expect(countDone(body)).toBe(0);
  // first_token_ms (600 ms) ended it, not the target (silent for 10 s, past the client's own limit);
  // a timeout is never retried on the same target.
  expect(elapsedMs).toBeGreaterThanOrEqual(550);
  expect(gateway.mock.attemptsFor('never-speaks')).toHaveLength(1);
});

it('the official SDK raises on that in-band error', async () => {
  const client = openAiClient(gateway.url);
  const consume = async () => {
    for await (const _chunk of await client.chat.completions.create({ model: 'slow-and-silent', stream: true, messages: hello })) {
      // nothing arrives
    }
  };
  await expect(consume()).rejects.toBeInstanceOf(OpenAI.APIError);
  expect(gateway.mock.attemptsFor('never-speaks')).toHaveLength(1);
});
