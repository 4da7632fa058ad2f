import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServeProcess, type ServeProcess } from '../../../bench/serve-process.js';
import { startMockProvider, type MockProvider } from '../../../src/mock/mock-provider.js';
import { openRawConnection, postHead, responseHeads } from '../../support/raw-connection.js';
import { countDone, hello } from '../scenario-helpers.js';

// 10 chunks 150 ms apart: each stream takes about 1.5 s, far less than drain_ms (left at its default).
const DRAIN_MS = 10_000;
const STREAM_MODEL = 'gpt-mock?chunks=10&chunk_ms=150';

let directory: string;
let mock: MockProvider;
let serve: ServeProcess | undefined;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'switchyard-sigterm-'));
  mock = await startMockProvider();
});
afterAll(async () => {
  await serve?.kill();
  await mock.close();
  rmSync(directory, { recursive: true, force: true });
});

const chatBody = (model: string, stream: boolean) => JSON.stringify({ model, stream, messages: hello });

it('on SIGTERM idle sockets close at once, open ones are told Connection: close, and the process exits when the last request is done, every one recorded', async () => {
  const storeFile = join(directory, 'switchyard.db');
  const configFile = join(directory, 'config.yaml');
  writeFileSync(
    configFile,
    `auth: { mode: none }
store: { kind: sqlite, path: ${JSON.stringify(storeFile)} }
connections:
  upstream: { provider: mock, dialect: openai, base_url: "${mock.url}/v1" }
routes:
  slow: { targets: [{ connection: upstream, model: "${STREAM_MODEL}" }] }
  quick: { targets: [{ connection: upstream, model: gpt-mock }] }
`,
  );
  serve = await startServeProcess(configFile);

  // A keep-alive socket that was answered once and now sits idle.
  const idle = await openRawConnection(serve.url);
  idle.send('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
  await idle.until((received) => received.includes('"ok"'));

  // Streams under way on keep-alive connections…
  const streams = await Promise.all(
    [1, 2, 3].map(() =>
      fetch(`${serve!.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chatBody('slow', true) }),
    ),
  );
  // …and one on a raw socket, which will carry one more request after SIGTERM.
  const open = await openRawConnection(serve.url);
  const streamBody = chatBody('slow', true);
  open.send(postHead('/v1/chat/completions', Buffer.byteLength(streamBody)) + streamBody);
  await open.until((received) => received.includes('data: {'));

  const signalledAtMs = Date.now();
  serve.signal('SIGTERM');
  const quickBody = chatBody('quick', false);
  open.send(postHead('/v1/chat/completions', Buffer.byteLength(quickBody)) + quickBody);

  const streamTexts = await Promise.all(streams.map((response) => response.text()));
  const streamsDoneAtMs = Date.now();
  const exit = await serve.exited;
  const openClosedAtMs = await open.closed;

  // The idle socket went at once, while the streams were still running.
  expect(await idle.closed).toBeLessThan(streamsDoneAtMs);
  // Every stream finished whole.
  for (const text of streamTexts) expect(countDone(text)).toBe(1);
  // The request sent on the open socket after SIGTERM was answered, with Connection: close,
  // after the stream already under way there (which had begun with keep-alive).
  const heads = responseHeads(open.received);
  expect(heads.map((head) => head.status)).toEqual([200, 200]);
  expect(heads[0]!.headers.connection).toBe('keep-alive');
  expect(heads[1]!.headers.connection).toBe('close');
  expect(countDone(open.received)).toBe(1);
  expect(open.received).toContain('"chat.completion"');
  expect(openClosedAtMs).toBeLessThanOrEqual(exit.atMs);
  // The process left as soon as nothing was in flight: before drain_ms, which would otherwise
  // have ended it (the streams take about 1.5 s at rest).
  expect(exit.code).toBe(0);
  expect(exit.atMs - signalledAtMs).toBeLessThan(DRAIN_MS);
  expect(serve.logs.filter((entry) => Number(entry.level) >= 50)).toEqual([]);

  // The provider saw each request once, each answered in full.
  expect(mock.attempts.map((attempt) => [attempt.model, attempt.outcome]).sort()).toEqual(
    [['gpt-mock', 'ok'], ...Array.from({ length: 4 }, () => [STREAM_MODEL, 'ok'])].sort(),
  );
  // Every request has its record, and every spend row a record to go with it.
  const ids = [...streams.map((response) => response.headers.get('x-request-id')), ...heads.map((head) => head.headers['x-request-id'])];
  const db = new Database(storeFile, { readonly: true });
  try {
    const records = db.prepare('SELECT id, status, http_status FROM requests').all() as { id: string; status: string; http_status: number }[];
    expect(records.map((record) => record.id).sort()).toEqual([...ids].sort());
    expect(records.every((record) => record.status === 'ok' && record.http_status === 200)).toBe(true);
    const spendIds = db.prepare('SELECT request_id FROM spend').pluck().all() as string[];
    expect([...spendIds].sort()).toEqual([...ids].sort());
  } finally {
    db.close();
  }
});
