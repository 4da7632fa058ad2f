import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/core/request-record.js';
import { openResponsesSocket } from '../../support/responses-socket.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

const DRAIN_MS = 1_500;
const directory = mkdtempSync(join(tmpdir(), 'switchyard-socket-drain-'));
const storeFile = join(directory, 'switchyard.db');
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
store: { kind: sqlite, path: "${storeFile}" }
${MOCK_CONNECTIONS}
routes:
  # About 0.6 s of stream: well within drain_ms.
  short: { targets: [{ connection: mock-openai, model: "gpt-short?chunks=6&chunk_ms=100" }] }
  # About 6 s of stream: far longer than drain_ms.
  long: { targets: [{ connection: mock-openai, model: "gpt-long?chunks=60&chunk_ms=100" }] }
`);
});
// The test closes the gateway itself, with a drain time.
afterAll(async () => {
  await gateway.mock.close();
  rmSync(directory, { recursive: true, force: true });
});

it('closes an idle socket with 1001 at once, lets a response end within drain_ms, cuts a longer one with its error event, and closes each socket with 1001', async () => {
  const [idle, short, long] = await Promise.all([openResponsesSocket(gateway.url), openResponsesSocket(gateway.url), openResponsesSocket(gateway.url)]);
  short.send({ type: 'response.create', model: 'short', input: 'hi' });
  long.send({ type: 'response.create', model: 'long', input: 'hi' });
  await Promise.all([short.until('response.output_text.delta'), long.until('response.output_text.delta')]);

  const closing = gateway.app.close({ drainMs: DRAIN_MS });
  expect(await idle.closed).toEqual({ code: 1001, reason: 'the gateway is shutting down' });
  const shortRest = await short.nextTurn();
  expect(shortRest.at(-1)).toMatchObject({ type: 'response.completed' });
  expect(await short.closed).toEqual({ code: 1001, reason: 'the gateway is shutting down' });
  // The short response ended while the long one still ran.
  expect(long.ws.readyState).toBe(long.ws.OPEN);

  const longRest = await long.nextTurn();
  expect(longRest.slice(-2).map((event) => event.type)).toEqual(['error', 'response.failed']);
  expect(longRest.at(-2)).toMatchObject({ error: { code: 'stream_interrupted' } });
  expect(JSON.stringify(longRest.at(-2))).toMatch(/shutting down/);
  expect(await long.closed).toEqual({ code: 1001, reason: 'the gateway is shutting down' });
  await closing;

  expect(gateway.mock.attemptsFor('gpt-long')[0]!.outcome).toBe('client_closed');
  const db = new Database(storeFile, { readonly: true });
  try {
    const records = (db.prepare('SELECT record_json FROM requests').pluck().all() as string[]).map((json) => JSON.parse(json) as RequestRecord);
    expect(records.map((record) => [record.route, record.transport, record.status, record.http_status, record.error_code]).sort()).toEqual([
      ['long', 'websocket', 'interrupted', 200, 'shutdown'],
      ['short', 'websocket', 'ok', 200, null],
    ]);
  } finally {
    db.close();
  }
});
