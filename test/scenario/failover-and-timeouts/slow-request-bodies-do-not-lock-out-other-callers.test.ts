import { afterAll, beforeAll, expect, it } from 'vitest';
import { openRawConnection, postHead, type RawConnection } from '../../support/raw-connection.js';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { hello } from '../scenario-helpers.js';

const MAX_IN_FLIGHT = 2;

let gateway: TestGateway;
const trickling: RawConnection[] = [];

beforeAll(async () => {
  gateway = await startGateway(`
server: { max_in_flight: ${MAX_IN_FLIGHT} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  chat: { targets: [{ connection: mock-openai, model: gpt-mock }] }
`);
});
afterAll(async () => {
  for (const connection of trickling) connection.socket.destroy();
  await gateway.close();
});

it('callers still sending their bodies hold no server.max_in_flight slot: everyone else is served', async () => {
  const body = JSON.stringify({ model: 'chat', messages: hello });
  // Twice as many slow senders as there are slots, each stopped a few bytes into its body.
  for (let index = 0; index < MAX_IN_FLIGHT * 2; index++) {
    const connection = await openRawConnection(gateway.url);
    connection.send(postHead('/v1/chat/completions', Buffer.byteLength(body)) + body.slice(0, 10));
    trickling.push(connection);
  }
  // One answer after another, while the slow senders are still sending.
  for (let index = 0; index < 3; index++) {
    const response = await postChat(gateway.url, { model: 'chat', messages: hello });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { object: string }).object).toBe('chat.completion');
  }
  expect(trickling.every((connection) => connection.received === '')).toBe(true);
  expect(gateway.mock.attempts).toHaveLength(3);

  // A slow sender that finishes its body is served like anyone else.
  const [first] = trickling;
  first!.send(body.slice(10));
  await first!.until((received) => received.includes('"chat.completion"'));
  expect(first!.received).toMatch(/^HTTP\/1\.1 200 /);
  expect(gateway.mock.attempts).toHaveLength(4);
});
