import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/core/request-record.js';
import { refusedHandshake, socketsDroppedAfterEach, type ResponsesSocketClient } from '../../support/responses-socket.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { createKey, keysAuth } from '../../support/virtual-keys.js';

const ADMIN_TOKEN = 'socket-gate-admin-token';
let gateway: TestGateway;
const openSocket = socketsDroppedAfterEach();

beforeAll(async () => {
  gateway = await startGateway(`
${keysAuth(ADMIN_TOKEN)}
${MOCK_CONNECTIONS}
routes:
  talk: { targets: [{ connection: mock-openai, model: gpt-talk, price: { input_per_mtok: 1000, output_per_mtok: 2000 } }] }
  private: { targets: [{ connection: mock-openai, model: gpt-private }] }
`);
});
afterAll(() => gateway.close());
const socket = (key: string): Promise<ResponsesSocketClient> => openSocket(gateway.url, { authorization: `Bearer ${key}` });

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

it('answers a handshake without a key, or with a wrong or revoked one, with its 401 over HTTP in the OpenAI error shape, before any upgrade', async () => {
  const missing = await refusedHandshake(gateway.url);
  expect(missing.status).toBe(401);
  expect(missing.headers['x-request-id']).toMatch(/^req_/);
  expect(JSON.parse(missing.body)).toEqual({ error: expect.objectContaining({ type: 'invalid_request_error', code: 'invalid_api_key', param: null }) });

  const wrong = await refusedHandshake(gateway.url, { authorization: 'Bearer sk-not-a-key' });
  expect(wrong.status).toBe(401);
  expect(JSON.parse(wrong.body).error.message).toContain('Incorrect API key');

  const { id, key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'revoked-before' });
  await fetch(`${gateway.url}/admin/keys/${id}`, { method: 'DELETE', headers: admin });
  const revoked = await refusedHandshake(gateway.url, { 'x-api-key': key });
  expect(revoked.status).toBe(401);
  expect(JSON.parse(revoked.body).error.message).toContain('revoked');
  expect(gateway.mock.attemptsFor('gpt-talk')).toHaveLength(0);
});

it('gates every turn as a POST: a route the key may not use is 403, a key revoked while the socket is open is 401 on its next turn', async () => {
  const { id, key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'talk-only', routes: ['talk'] });
  const client = await socket(key);
  expect((await client.turn({ model: 'talk', input: 'hi' })).at(-1)!.type).toBe('response.completed');
  const forbidden = await client.turn({ model: 'private', input: 'hi' });
  expect(forbidden).toEqual([expect.objectContaining({ type: 'error', status: 403 })]);
  expect(gateway.mock.attemptsFor('gpt-private')).toHaveLength(0);

  await fetch(`${gateway.url}/admin/keys/${id}`, { method: 'DELETE', headers: admin });
  const afterRevoke = await client.turn({ model: 'talk', input: 'again' });
  expect(afterRevoke).toEqual([expect.objectContaining({ type: 'error', status: 401, error: expect.objectContaining({ code: 'invalid_api_key' }) })]);
});

it('holds a key to its rpm and budget across the turns of a socket, refusing in an error event that names the limit, and bills each turn', async () => {
  const { id, key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'two-a-minute', limits: { rpm: 2 }, budget: { usd: 100, period: 'month' } });
  const client = await socket(key);
  expect((await client.turn({ model: 'talk', input: 'one' })).at(-1)!.type).toBe('response.completed');
  expect((await client.turn({ model: 'talk', input: 'two' })).at(-1)!.type).toBe('response.completed');
  const third = await client.turn({ model: 'talk', input: 'three' });
  expect(third).toEqual([expect.objectContaining({ type: 'error', status: 429, error: expect.objectContaining({ code: 'rate_limit_exceeded' }) })]);
  // The socket is still open and still answers what is not a turn.
  client.send({ type: 'nothing' });
  expect((await client.nextTurn())[0]).toMatchObject({ type: 'error', status: 400 });

  const spend = (await (await fetch(`${gateway.url}/admin/keys/${id}/spend`, { headers: admin })).json()) as { usd: number };
  expect(spend.usd).toBeGreaterThan(0);
  await gateway.app.records.flush();
  const mine = (await gateway.app.records.list({})).filter((record: RequestRecord) => record.key_name === 'two-a-minute');
  expect(mine.map((record) => [record.status, record.http_status, record.transport])).toEqual([
    ['rejected', 429, 'websocket'],
    ['ok', 200, 'websocket'],
    ['ok', 200, 'websocket'],
  ]);
  expect(mine[1]!.cost_usd! + mine[2]!.cost_usd!).toBeCloseTo(spend.usd, 9);
});
