import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, expect, it } from 'vitest';
import { StoreThread } from '../../src/store/store-thread.js';
import { StoreUnavailableError } from '../../src/store/store-unavailable-error.js';
import { migrate } from '../../src/store/migrate.js';
import { openDatabase } from '../../src/store/open-database.js';
import { spendRows } from '../ledger/spend-fixtures.js';
import { sampleRecord } from '../records/sample-record.js';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-insert-thread-'));
const threads: StoreThread[] = [];
afterEach(async () => {
  for (const thread of threads.splice(0)) await thread.close();
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function migratedFile(name: string): Promise<string> {
  const path = join(directory, name);
  const db = openDatabase({ kind: 'sqlite', path });
  await migrate(db);
  await db.destroy();
  return path;
}

function startThread(path: string, options: { callTimeoutMs?: number } = {}): StoreThread {
  const thread = new StoreThread(path, options);
  threads.push(thread);
  return thread;
}

/** What another connection sees in the file once an insert has resolved. */
function count(path: string, table: 'requests' | 'attempts' | 'spend'): number {
  const reader = new Database(path, { readonly: true });
  try {
    return (reader.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    reader.close();
  }
}

it('stores records and spend rows from its own thread, committed by the time the insert resolves', async () => {
  const path = await migratedFile('writes.db');
  const thread = startThread(path);
  await thread.records([sampleRecord({ id: 'req_a' }), sampleRecord({ id: 'req_b' })]);
  await thread.spend(spendRows(3));
  expect(count(path, 'requests')).toBe(2);
  expect(count(path, 'attempts')).toBe(4);
  expect(count(path, 'spend')).toBe(3);

  // A batch sent again (its reply lost, say) is stored once.
  await thread.records([sampleRecord({ id: 'req_a' })]);
  expect(count(path, 'requests')).toBe(2);
});

it("rejects a batch the store refuses, with the store's reason, and keeps serving the next one", async () => {
  const path = await migratedFile('refuses.db');
  const thread = startThread(path);
  const broken = { ...sampleRecord({ id: 'req_broken' }), status: null } as unknown as ReturnType<typeof sampleRecord>;
  await expect(thread.records([sampleRecord({ id: 'req_first' }), broken])).rejects.toThrow(/NOT NULL constraint failed: requests.status/);
  // All or nothing: the good record of the refused batch is not stored either.
  expect(count(path, 'requests')).toBe(0);
  await thread.records([sampleRecord({ id: 'req_next' })]);
  expect(count(path, 'requests')).toBe(1);
});

it('fails the writes, rather than leaving them hanging, when the thread cannot open its store', async () => {
  const notAFile = join(directory, 'a-directory.db');
  mkdirSync(notAFile);
  // A loaded machine can take more than the 1 s call bound to start a thread: the bound here is
  // for a hang, so what fails the call is the thread's exit.
  const thread = startThread(notAFile, { callTimeoutMs: 30_000 });
  await expect(thread.records([sampleRecord({ id: 'req_lost' })])).rejects.toThrow(/store thread/);
  // The next write starts a new thread (which fails the same way here, and says so).
  await expect(thread.spend(spendRows(1))).rejects.toThrow(/store thread/);
});

/** A statement that keeps the thread busy for about a second of CPU. */
const SLOW_QUERY = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000000) SELECT count(*) FROM c';

it('a call the thread cannot answer in time fails as unavailable within its bound, and one that expired while queued is never run', async () => {
  const path = await migratedFile('slow.db');
  const thread = startThread(path, { callTimeoutMs: 300 });
  await thread.ready();
  const startedMs = performance.now();
  const slow = thread.query(SLOW_QUERY, []);
  const queued = thread.records([sampleRecord({ id: 'req_too_late' })]);
  await expect(slow).rejects.toBeInstanceOf(StoreUnavailableError);
  await expect(queued).rejects.toThrow('did not answer within 300 ms');
  expect(performance.now() - startedMs).toBeLessThan(1_000);

  // Once the thread is free it answers again; the insert that waited past its deadline never ran.
  let answered = false;
  for (let attempt = 0; attempt < 50 && !answered; attempt++) {
    answered = await thread.query('SELECT 1 AS one', []).then(
      () => true,
      () => false,
    );
  }
  expect(answered).toBe(true);
  expect(count(path, 'requests')).toBe(0);
});

it('runs kysely-compiled queries: rows for readers, changes for writers', async () => {
  const path = await migratedFile('queries.db');
  const thread = startThread(path);
  await thread.records([sampleRecord({ id: 'req_q' })]);
  expect(await thread.query('SELECT id FROM requests WHERE id = ?', ['req_q'])).toEqual({ rows: [{ id: 'req_q' }] });
  const deleted = await thread.query('DELETE FROM attempts WHERE request_id = ?', ['req_q']);
  expect(deleted.numAffectedRows).toBe(2n);
  expect(await thread.pruneRecords({ olderThanMs: Number.POSITIVE_INFINITY, limit: 10 })).toBe(1);
});
