import type { ResponsesServerEvent } from 'openai/resources/responses/responses';
import { ResponsesWS } from 'openai/resources/responses/ws';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { createKey, keysAuth } from '../../support/virtual-keys.js';

const ADMIN_TOKEN = 'sdk-socket-admin-token';
let gateway: TestGateway;
let apiKey: string;
const sockets: ResponsesWS[] = [];

beforeAll(async () => {
  gateway = await startGateway(`
${keysAuth(ADMIN_TOKEN)}
${MOCK_CONNECTIONS}
routes:
  talk: { targets: [{ connection: mock-openai, model: gpt-talk }] }
  failover:
    retries: 0
    targets:
      - { connection: mock-openai, model: "gpt-down?status=500" }
      - { connection: mock-anthropic, model: claude-up }
  cutting: { retries: 0, targets: [{ connection: mock-openai, model: "gpt-cut?cut_after=3" }] }
`);
  apiKey = (await createKey(gateway.url, ADMIN_TOKEN, { name: 'sdk-socket' })).key;
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close();
});

/** The SDK's Responses WebSocket, open, with every event it emits and every error it raises. */
async function connect(): Promise<{ socket: ResponsesWS; events: ResponsesServerEvent[]; errors: Error[] }> {
  const socket = new ResponsesWS(openAiClient(gateway.url, apiKey));
  sockets.push(socket);
  const events: ResponsesServerEvent[] = [];
  const errors: Error[] = [];
  socket.on('event', (event) => events.push(event));
  socket.on('error', (error) => errors.push(error));
  await new Promise((resolve, reject) => {
    socket.socket.once('open', resolve);
    socket.socket.once('error', reject);
  });
  return { socket, events, errors };
}

/** Sends a turn and resolves with its completed response, or the error the SDK raised meanwhile. */
function turn(connection: Awaited<ReturnType<typeof connect>>, body: Record<string, unknown>): Promise<{ id: string; output_text: string } | Error> {
  const [eventsBefore, errorsBefore] = [connection.events.length, connection.errors.length];
  connection.socket.send({ type: 'response.create', ...body } as never);
  return new Promise((resolve) => {
    const check = () => {
      const error = connection.errors[errorsBefore];
      const completed = connection.events.slice(eventsBefore).find((event) => event.type === 'response.completed');
      if (error) resolve(error);
      else if (completed) resolve({ id: completed.response.id, output_text: completed.response.output_text ?? outputText(completed.response.output) });
      else setTimeout(check, 10);
    };
    check();
  });
}

function outputText(output: readonly unknown[]): string {
  return output.flatMap((item) => (item as { content?: { text?: string }[] }).content ?? []).map((part) => part.text ?? '').join('');
}

it('answers turns on one socket, the second continuing the first unstored by previous_response_id', async () => {
  const connection = await connect();
  const first = await turn(connection, { model: 'talk', input: 'one', store: false });
  if (first instanceof Error) throw first;
  expect(first.output_text).toBe(mockAnswerText(8));
  const second = await turn(connection, { model: 'talk', input: 'two', store: false, previous_response_id: first.id });
  if (second instanceof Error) throw second;
  const sent = gateway.mock.attemptsFor('gpt-talk')[1]!.body as { messages: { role: string; content: unknown }[] };
  expect(sent.messages.map((message) => message.content)).toEqual(['one', mockAnswerText(8), 'two']);
  expect(connection.errors).toEqual([]);
});

it('does not see a primary that fails before the first content', async () => {
  const connection = await connect();
  const answer = await turn(connection, { model: 'failover', input: 'hi' });
  if (answer instanceof Error) throw answer;
  expect(answer.output_text).toBe(mockAnswerText(8));
  expect(connection.errors).toEqual([]);
  expect(connection.events.filter((event) => event.type === 'response.created')).toHaveLength(1);
});

it('raises a stream cut after its first content as an error', async () => {
  const connection = await connect();
  const raised = await turn(connection, { model: 'cutting', input: 'hi' });
  expect(raised).toBeInstanceOf(Error);
  expect((raised as Error).message).toContain('stream_interrupted');
  expect(connection.events.some((event) => event.type === 'response.output_text.delta')).toBe(true);
});
