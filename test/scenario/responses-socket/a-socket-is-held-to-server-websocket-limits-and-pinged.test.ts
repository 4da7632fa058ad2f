import { afterEach, expect, it, vi } from 'vitest';
import { openRawConnection } from '../../support/raw-connection.js';
import { refusedHandshake, socketsDroppedAfterEach, type ResponsesSocketClient } from '../../support/responses-socket.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

let gateway: TestGateway | undefined;
const socket = socketsDroppedAfterEach();

afterEach(async () => {
  vi.useRealTimers();
  await gateway?.close();
  gateway = undefined;
});

async function start(websocket: string): Promise<TestGateway> {
  gateway = await startGateway(`
server: { websocket: ${websocket} }
${MOCK_CONNECTIONS}
routes:
  talk: { targets: [{ connection: mock-openai, model: gpt-talk }] }
  slow: { targets: [{ connection: mock-openai, model: "gpt-slow?chunks=8&chunk_ms=250" }] }
`);
  return gateway;
}

it('refuses a socket past max_sockets with 503 at its handshake, and takes one again once a socket has closed', async () => {
  const { url } = await start('{ max_sockets: 1 }');
  const first = await socket(url);
  const refused = await refusedHandshake(url);
  expect(refused.status).toBe(503);
  expect(JSON.parse(refused.body).error).toMatchObject({ code: 'overloaded', type: 'server_error' });
  expect(JSON.parse(refused.body).error.message).toContain('server.websocket.max_sockets');
  first.ws.close();
  await first.closed;
  const again = await socket(url);
  expect((await again.turn({ model: 'talk', input: 'hi' })).at(-1)!.type).toBe('response.completed');
});

it('closes a socket idle for idle_s with 1000, and counts no idle time while a response runs', async () => {
  const { url } = await start('{ idle_s: 1 }');
  const client = await socket(url);
  // The slow answer takes 2 s, longer than idle_s: the socket is not idle while it runs.
  expect((await client.turn({ model: 'slow', input: 'hi' })).at(-1)!.type).toBe('response.completed');
  expect(await client.closed).toEqual({ code: 1000, reason: 'idle for server.websocket.idle_s' });
});

it('closes a socket past max_lifetime_s with 1000 once the response it is running has ended', async () => {
  const { url } = await start('{ max_lifetime_s: 1 }');
  const client = await socket(url);
  const events = await client.turn({ model: 'slow', input: 'hi' });
  expect(events.at(-1)!.type).toBe('response.completed');
  expect(await client.closed).toEqual({ code: 1000, reason: 'server.websocket.max_lifetime_s reached; open a new socket' });
});

it('closes a socket that sends a message over max_message_bytes with 1009, having called no provider', async () => {
  const { url, mock } = await start('{ max_message_bytes: 2048 }');
  const client = await socket(url);
  client.send({ type: 'response.create', model: 'talk', input: 'x'.repeat(4096) });
  expect((await client.closed).code).toBe(1009);
  expect(mock.attemptsFor('gpt-talk')).toHaveLength(0);
});

it('pings every 30 s and drops a socket that has not answered the last ping by the next', async () => {
  const { url } = await start('{}');
  // Only the interval is faked: the socket's ping timer is made after this, every other timer stays real.
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  const answering = await socket(url);
  const silent = await socket(url, {}, { autoPong: false });
  const pinged = (client: ResponsesSocketClient) => new Promise<void>((resolve) => client.ws.once('ping', () => resolve()));
  const bothPinged = Promise.all([pinged(silent), pinged(answering)]);
  vi.advanceTimersByTime(30_000);
  await bothPinged;
  // A turn sent after the pong arrives after it: the gateway has heard the pong when the turn ends.
  expect((await answering.turn({ model: 'talk', input: 'after the ping' })).at(-1)!.type).toBe('response.completed');
  vi.advanceTimersByTime(30_000);
  expect((await silent.closed).code).toBe(1006);
  expect(answering.ws.readyState).toBe(answering.ws.OPEN);
  expect((await answering.turn({ model: 'talk', input: 'still here' })).at(-1)!.type).toBe('response.completed');
});

it('answers an upgrade on another path as a plain request, then closes the connection', async () => {
  const { url } = await start('{}');
  const raw = await openRawConnection(url);
  raw.send('GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n');
  await raw.closed;
  const [head, body] = raw.received.split('\r\n\r\n') as [string, string];
  expect(head.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
  expect((JSON.parse(body) as { data: { id: string }[] }).data.map((model) => model.id)).toContain('talk');
});
