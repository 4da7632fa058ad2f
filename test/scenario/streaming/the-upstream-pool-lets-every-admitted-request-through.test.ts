import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { eventually, hello, sseContent } from '../scenario-helpers.js';

/** Two connections on one upstream origin, each allowed this many requests in flight. */
const PER_CONNECTION = 280;
/** Together more than the 512 sockets a fixed-size pool would open to their shared origin. */
const TOGETHER = 2 * PER_CONNECTION;

/** An OpenAI-compatible upstream that holds every request, unanswered, until told to answer. */
let upstream: Server;
const held: ServerResponse[] = [];
let mostHeldAtOnce = 0;
let gateway: TestGateway;

const chunk = (delta: object, finishReason: string | null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-held', object: 'chat.completion.chunk', created: 0, model: 'held', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;

function answerEveryHeld(): void {
  for (const response of held.splice(0)) {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(`${chunk({ role: 'assistant', content: 'held' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`);
  }
}

const config = (port: number, maxInFlight: number) => `
connections:
  mock-openai: { provider: mock, dialect: openai }
  first: { provider: openai-compatible, base_url: "http://127.0.0.1:${port}/v1", api_key: first-key, max_in_flight: ${maxInFlight} }
  second: { provider: openai-compatible, base_url: "http://127.0.0.1:${port}/v1", api_key: second-key, max_in_flight: ${maxInFlight} }
routes:
  via-first:
    retries: 0
    timeouts: { first_token_ms: 15000 }
    targets: [{ connection: first, model: held }]
  via-second:
    retries: 0
    timeouts: { first_token_ms: 15000 }
    targets: [{ connection: second, model: held }]
`;

let port: number;

beforeAll(async () => {
  upstream = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      held.push(response);
      mostHeldAtOnce = Math.max(mostHeldAtOnce, held.length);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  port = (upstream.address() as AddressInfo).port;
  gateway = await startGateway(config(port, PER_CONNECTION));
});
afterAll(async () => {
  answerEveryHeld();
  await gateway.close();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

/** Sends `TOGETHER` streams, half through each connection, and answers them once all are held (or the wait gives up). */
async function everyRequestHeldAtOnce(): Promise<{ statuses: number[]; contents: string[]; attempts: (string | null)[]; heldAtOnce: number }> {
  mostHeldAtOnce = 0;
  const sent = Array.from({ length: TOGETHER }, (_, index) =>
    postChat(gateway.url, { model: index % 2 === 0 ? 'via-first' : 'via-second', stream: true, messages: hello }, {}).then(async (response) => ({
      status: response.status,
      content: sseContent(await response.text()),
      attempts: response.headers.get('x-switchyard-attempts'),
    })),
  );
  let heldAtOnce = 0;
  try {
    await eventually(() => held.length >= TOGETHER, 10_000, `${TOGETHER} requests held by the upstream at once`);
  } catch {
    // Answer what arrived anyway, so the assertions below say what happened.
  } finally {
    heldAtOnce = mostHeldAtOnce;
    answerEveryHeld();
  }
  // Anything still waiting in a pool reaches the upstream now; answer it too.
  const answers = Promise.all(sent);
  const drain = setInterval(answerEveryHeld, 20);
  try {
    const results = await answers;
    return { statuses: results.map((result) => result.status), contents: results.map((result) => result.content), attempts: results.map((result) => result.attempts), heldAtOnce };
  } finally {
    clearInterval(drain);
  }
}

// Load shedding lets each connection have max_in_flight requests in flight; the pool to their
// origin must hold all of them at once, or the overflow queues inside the HTTP client — a hidden
// queue that the gateway promises not to have.
it('every request the connections admit reaches their shared upstream origin at once', async () => {
  const result = await everyRequestHeldAtOnce();
  expect(result.heldAtOnce).toBe(TOGETHER);
  expect(result.statuses.every((status) => status === 200)).toBe(true);
  expect(result.contents.every((content) => content === 'held')).toBe(true);
  expect(result.attempts.every((attempts) => attempts === '1')).toBe(true);
}, 40_000);

it('after a reload raises max_in_flight, the pool grows with it', async () => {
  gateway.writeConfig(config(port, 10));
  expect(gateway.configSource.reload()).toEqual([]);
  // Traffic at the small size first, so a pool of that size exists before the reload grows it.
  const drain = setInterval(answerEveryHeld, 20);
  try {
    const small = await Promise.all(Array.from({ length: 4 }, () => postChat(gateway.url, { model: 'via-first', stream: true, messages: hello }).then((response) => response.status)));
    expect(small).toEqual([200, 200, 200, 200]);
  } finally {
    clearInterval(drain);
  }

  gateway.writeConfig(config(port, PER_CONNECTION));
  expect(gateway.configSource.reload()).toEqual([]);
  const result = await everyRequestHeldAtOnce();
  expect(result.heldAtOnce).toBe(TOGETHER);
  expect(result.statuses.every((status) => status === 200)).toBe(true);
}, 40_000);
