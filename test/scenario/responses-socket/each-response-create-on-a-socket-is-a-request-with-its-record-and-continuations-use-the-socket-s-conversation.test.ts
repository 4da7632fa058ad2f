import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/core/request-record.js';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { socketsDroppedAfterEach, type ResponsesSocketClient, type SocketEvent } from '../../support/responses-socket.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

let gateway: TestGateway;
const openSocket = socketsDroppedAfterEach();

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  talk: { targets: [{ connection: mock-openai, model: gpt-talk }] }
  talk-claude: { targets: [{ connection: mock-anthropic, model: claude-talk }] }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());
const socket = (): Promise<ResponsesSocketClient> => openSocket(gateway.url);

async function records(count: number): Promise<RequestRecord[]> {
  await gateway.app.records.flush();
  const all = await gateway.app.records.list({});
  return all.slice(0, count).reverse();
}

const completed = (events: SocketEvent[]) => events.at(-1)!.response as Record<string, unknown> & { id: string; output: { content?: { text: string }[] }[] };
type SentMessage = { role: string; content: unknown };

it('answers a response.create with the Responses event sequence, one JSON object per message, and keeps a record saying websocket', async () => {
  const client = await socket();
  const events = await client.turn({ model: 'talk', input: 'What is a switchyard?' });
  expect(events.map((event) => event.type)).toEqual([
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.content_part.added',
    ...Array.from({ length: 8 }, () => 'response.output_text.delta'),
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.completed',
  ]);
  expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
  const response = completed(events);
  expect(response).toMatchObject({ status: 'completed', model: 'gpt-talk' });
  expect(response.output[0]!.content![0]!.text).toBe(mockAnswerText(8));

  const [record] = await records(1);
  expect(record).toMatchObject({ transport: 'websocket', operation: 'responses', status: 'ok', http_status: 200, route: 'talk', stream: true });
  expect(record!.id).toBe(`req_${response.id.slice('resp_'.length)}`);
  expect(record!.usage!.output_tokens).toBeGreaterThan(0);
});

it('continues a store: false turn by previous_response_id from the socket’s own conversation, sending only the new input', async () => {
  const client = await socket();
  const first = completed(await client.turn({ model: 'talk', input: 'one', store: false }));
  const second = completed(await client.turn({ model: 'talk', input: 'two', store: false, previous_response_id: first.id }));
  await client.turn({ model: 'talk', input: 'three', store: false, previous_response_id: second.id });
  const sent = gateway.mock.attemptsFor('gpt-talk').map((attempt) => (attempt.body as { messages: SentMessage[] }).messages);
  expect(sent.at(-1)).toEqual([
    { role: 'user', content: 'one' },
    { role: 'assistant', content: mockAnswerText(8) },
    { role: 'user', content: 'two' },
    { role: 'assistant', content: mockAnswerText(8) },
    { role: 'user', content: 'three' },
  ]);
  // Unstored, the turn is the socket's alone: another socket (or HTTP) does not find it.
  const other = await socket();
  const refused = await other.turn({ model: 'talk', input: 'four', previous_response_id: second.id });
  expect(refused).toEqual([expect.objectContaining({ type: 'error', status: 400, error: expect.objectContaining({ code: 'previous_response_not_found', param: 'previous_response_id' }) })]);
});

it('continues a stored turn made over HTTP, and the next turn is served by another provider with the whole conversation', async () => {
  const overHttp = await fetch(`${gateway.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'talk', input: 'Asked over HTTP.' }),
  });
  const stored = (await overHttp.json()) as { id: string };
  const client = await socket();
  const events = await client.turn({ model: 'talk-claude', input: 'Asked on the socket.', previous_response_id: stored.id });
  expect(completed(events)).toMatchObject({ status: 'completed', previous_response_id: stored.id });
  const sent = gateway.mock.attemptsFor('claude-talk')[0]!.body as { messages: { role: string; content: unknown }[] };
  expect(JSON.stringify(sent.messages)).toContain('Asked over HTTP.');
  expect(JSON.stringify(sent.messages)).toContain(mockAnswerText(8));
  expect(JSON.stringify(sent.messages)).toContain('Asked on the socket.');
});

it('makes the socket the session of turns that name none, and keeps a session that is named', async () => {
  const one = await socket();
  await one.turn({ model: 'talk', input: 'a' });
  await one.turn({ model: 'talk', input: 'b' });
  const two = await socket();
  await two.turn({ model: 'talk', input: 'c' });
  await two.turn({ model: 'talk', input: 'd', prompt_cache_key: 'conversation-7' });
  const [a, b, c, d] = await records(4);
  expect(a!.session).toMatch(/^[0-9a-f]{32}$/);
  expect(b!.session).toBe(a!.session);
  expect(c!.session).not.toBe(a!.session);
  expect(d!.session).not.toBe(c!.session);
  expect(d!.session).not.toBe(a!.session);
});

it('answers generate: false (a client preparing its socket) itself, and the next turn may name it', async () => {
  const client = await socket();
  const warmUp = await client.turn({ model: 'talk', input: [], generate: false, store: false, instructions: 'Be brief.' });
  expect(warmUp.map((event) => event.type)).toEqual(['response.created', 'response.completed']);
  const prepared = completed(warmUp);
  expect(prepared).toMatchObject({ status: 'completed', output: [], instructions: 'Be brief.' });
  expect(gateway.mock.attemptsFor('gpt-talk')).toHaveLength(0);

  const next = await client.turn({ model: 'talk', input: 'Now answer.', store: false, previous_response_id: prepared.id });
  expect(completed(next).status).toBe('completed');
  expect((gateway.mock.attemptsFor('gpt-talk')[0]!.body as { messages: SentMessage[] }).messages.at(-1)).toEqual({ role: 'user', content: 'Now answer.' });
});

it('answers a message that is not a response.create with an error event, and goes on serving', async () => {
  const client = await socket();
  client.ws.send('not json');
  expect(await client.nextTurn()).toEqual([expect.objectContaining({ type: 'error', status: 400, error: expect.objectContaining({ code: 'invalid_event' }) })]);
  client.send({ type: 'response.cancel' });
  expect(await client.nextTurn()).toEqual([expect.objectContaining({ type: 'error', status: 400, error: expect.objectContaining({ code: 'unknown_event_type', param: 'type' }) })]);
  const refused = await client.turn({ model: 'talk' });
  expect(refused).toEqual([expect.objectContaining({ type: 'error', status: 400, error: expect.objectContaining({ type: 'invalid_request_error' }) })]);
  expect(String((refused[0]!.error as { message: string }).message)).toContain('input');
  expect(completed(await client.turn({ model: 'talk', input: 'fine' })).status).toBe('completed');
  const [bad, good] = await records(2);
  expect(bad).toMatchObject({ transport: 'websocket', status: 'rejected', http_status: 400 });
  expect(good).toMatchObject({ transport: 'websocket', status: 'ok' });
});
