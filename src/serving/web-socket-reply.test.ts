import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { OPENAI_RESPONSES } from '../dialects/openai-responses/openai-responses.js';
import { echoOf } from '../dialects/openai-responses/parse-openai-responses.js';
import type { OpenAiResponsesBody } from '../dialects/openai-responses/openai-responses-schema.js';
import type { StreamEvent } from '../providers/spec.js';
import { WebSocketReply } from './web-socket-reply.js';

let server: WebSocketServer | undefined;
afterEach(async () => {
  for (const client of server?.clients ?? []) client.terminate();
  await new Promise((resolve) => server?.close(resolve));
});

/** A server socket and the client at its other end, on loopback. */
async function socketPair(): Promise<{ serverSide: WebSocket; client: WebSocket }> {
  server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => server!.once('listening', resolve));
  const serverSide = new Promise<WebSocket>((resolve) => server!.once('connection', resolve));
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  await new Promise((resolve) => client.once('open', resolve));
  return { serverSide: await serverSide, client };
}

const BATCHES = 300;
const DELTA = 'x'.repeat(64 * 1024);

it('reads the next upstream batch only as a slow client takes what was sent, and streams it whole once the client reads again', async () => {
  const { serverSide, client } = await socketPair();
  let received = 0;
  client.on('message', () => received++);
  // The client reads nothing for now: what the gateway sends piles up in the socket's buffers.
  client.pause();
  let pulled = 0;
  async function* upstream(): AsyncIterable<StreamEvent[]> {
    yield [{ type: 'response-start' }];
    for (let n = 0; n < BATCHES; n++) {
      pulled++;
      yield [{ type: 'text-delta', text: DELTA }];
    }
    yield [{ type: 'finish', reason: 'stop' }];
  }
  const closed = new Promise<void>((resolve) => serverSide.once('close', () => resolve()));
  const reply = new WebSocketReply({ ws: serverSide, closed }, 'req_backpressure', OPENAI_RESPONSES, pino({ level: 'silent' }));
  const echo = echoOf({ model: 'm', input: 'x' } as OpenAiResponsesBody);
  reply.begin({ renderer: OPENAI_RESPONSES.streamRenderer({ fallbackId: 'req_backpressure', model: 'm', includeUsage: true, estimateInputTokens: () => 0, echo }), heartbeatMs: 1_000, idempotency: undefined });
  const ended = reply.stream({}, upstream(), { onFirstWrite: () => undefined, redact: (text) => text });

  // Wait until the reads stop: the stream is held, not buffered whole.
  let seen = -1;
  for (let checks = 0; checks < 100 && pulled !== seen; checks++) {
    seen = pulled;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(pulled).toBe(seen);
  expect(pulled).toBeLessThan(BATCHES);
  expect(serverSide.bufferedAmount).toBeLessThan(BATCHES * DELTA.length);

  client.resume();
  expect(await ended).toBe('complete');
  expect(pulled).toBe(BATCHES);
  await expect.poll(() => received, { timeout: 10_000 }).toBeGreaterThan(BATCHES);
});
