import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServeProcess, type ServeProcess } from '../../../bench/serve-process.js';
import { startMockProvider, type MockProvider } from '../../../src/mock/mock-provider.js';
import type { RequestRecord } from '../../../src/core/request-record.js';
import { countDone, eventually, hello } from '../scenario-helpers.js';

const DRAIN_MS = 300;
// About 4 s of stream, and an answer that takes 8 s: both far longer than drain_ms.
const STREAM_MODEL = 'gpt-mock?chunks=40&chunk_ms=100';
const WAITING_MODEL = 'gpt-mock?first_token_ms=8000';

let directory: string;
let mock: MockProvider;
let serve: ServeProcess | undefined;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'switchyard-sigterm-cut-'));
  mock = await startMockProvider();
});
afterAll(async () => {
  await serve?.kill();
  await mock.close();
  rmSync(directory, { recursive: true, force: true });
});

function post(url: string, model: string, stream: boolean): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream, messages: hello }),
  });
}

const untilMockSaw = (count: number) => eventually(() => mock.attempts.length >= count, 5_000, `the mock to see ${count} attempts`);

it('on SIGTERM, requests still running after server.drain_ms are cut, recorded as interrupted, and the process exits', async () => {
  const storeFile = join(directory, 'switchyard.db');
  const configFile = join(directory, 'config.yaml');
  writeFileSync(
    configFile,
    `server: { drain_ms: ${DRAIN_MS} }
auth: { mode: none }
store: { kind: sqlite, path: ${JSON.stringify(storeFile)} }
connections:
  upstream: { provider: mock, dialect: openai, base_url: "${mock.url}/v1" }
routes:
  slow: { targets: [{ connection: upstream, model: "${STREAM_MODEL}" }] }
  waiting: { targets: [{ connection: upstream, model: "${WAITING_MODEL}" }] }
`,
  );
  serve = await startServeProcess(configFile);

  // Nothing is sent to this caller before its whole answer, which is 8 s away.
  const waiting = post(serve.url, 'waiting', false).then(
    () => 'answered',
    () => 'cut',
  );
  const streams = await Promise.all([post(serve.url, 'slow', true), post(serve.url, 'slow', true)]);
  await untilMockSaw(3);

  const signalledAtMs = Date.now();
  serve.signal('SIGTERM');
  const streamTexts = await Promise.all(streams.map((response) => response.text().catch(() => '(cut)')));
  const exit = await serve.exited;

  expect(exit.code).toBe(0);
  // Not before drain_ms; the streams cut unfinished below say drain_ms, not their own end, stopped it.
  expect(exit.atMs - signalledAtMs).toBeGreaterThanOrEqual(DRAIN_MS);
  // The callers saw their answers end unfinished: no stream got its [DONE], the waiting one got nothing.
  for (const text of streamTexts) expect(countDone(text)).toBe(0);
  expect(await waiting).toBe('cut');
  expect(serve.logs.filter((entry) => Number(entry.level) >= 50)).toEqual([]);
  // The provider's side of every request was let go, not left running.
  expect(mock.attempts.map((attempt) => attempt.outcome)).toEqual(['client_closed', 'client_closed', 'client_closed']);

  const db = new Database(storeFile, { readonly: true });
  try {
    const records = (db.prepare('SELECT record_json FROM requests').pluck().all() as string[]).map((json) => JSON.parse(json) as RequestRecord);
    const summary = records.map((record) => [record.route, record.status, record.http_status, record.error_code]).sort();
    expect(summary).toEqual([
      ['slow', 'interrupted', 200, 'shutdown'],
      ['slow', 'interrupted', 200, 'shutdown'],
      ['waiting', 'interrupted', 503, 'shutdown'],
    ]);
    expect(records.filter((record) => record.route === 'slow').map((record) => record.id).sort()).toEqual(
      streams.map((response) => response.headers.get('x-request-id')).sort(),
    );
    // The cut streams were billed for what they had consumed: each spend row has its record.
    const recorded = new Set(records.map((record) => record.id));
    const spendIds = db.prepare('SELECT request_id FROM spend').pluck().all() as string[];
    expect(spendIds.length).toBeGreaterThanOrEqual(2);
    expect(spendIds.filter((id) => !recorded.has(id))).toEqual([]);
  } finally {
    db.close();
  }
});
