import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { RecordStore } from '../../src/records/record-store.js';
import { migrate } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-database.js';
import { SqliteInserts } from '../../src/store/sqlite-inserts.js';
import type { DatabaseSchema } from '../../src/store/schema.js';
import { sampleRecord } from './sample-record.js';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-records-'));
const opened: { store: RecordStore; db: Kysely<DatabaseSchema> }[] = [];

afterEach(async () => {
  for (const { store, db } of opened.splice(0)) {
    await store.close();
    await db.destroy();
  }
});

afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function openRecordStore(path: string, options: { recentLimit?: number; knownSecrets?: () => ReadonlySet<string> } = {}) {
  const { db, sqlite } = openStore({ kind: 'sqlite', path });
  await migrate(db);
  const inserts = new SqliteInserts(sqlite);
  // A long interval: only flush(), list() or close() write, so "before the write" is a real state.
  const store = new RecordStore({ db, writer: { insert: async (batch) => inserts.records(batch), flushIntervalMs: 60_000 }, ...options });
  opened.push({ store, db });
  return { store, db };
}

const minute = 60_000;
const base = Date.parse('2025-03-01T12:00:00.000Z');
const at = (offsetMs: number) => new Date(base + offsetMs).toISOString();

describe.each([
  ['in memory', () => ':memory:'],
  ['in a file', () => join(mkdtempSync(join(directory, 'db-')), 'nested', 'switchyard.db')],
])('RecordStore (SQLite %s)', (_name, path) => {
  it('reads a record back by id before its batched write lands', async () => {
    const { store, db } = await openRecordStore(path());
    const record = sampleRecord({ id: 'req_fresh' });
    store.add(record);
    expect(await store.get('req_fresh')).toEqual(record);
    expect(await db.selectFrom('requests').select('id').execute()).toEqual([]);
    expect(await store.get('req_unknown')).toBeUndefined();
  });

  it('reads from the database once the record has left the recent map', async () => {
    const { store } = await openRecordStore(path(), { recentLimit: 1 });
    const first = sampleRecord({ id: 'req_first' });
    store.add(first);
    store.add(sampleRecord({ id: 'req_second' }));
    await store.flush();
    expect(await store.get('req_first')).toEqual(first);
  });

  it('lists newest first, with the pending writes included, filtered by route, status and since', async () => {
    const { store } = await openRecordStore(path());
    store.add(sampleRecord({ id: 'a', created_at: at(0), route: 'support', status: 'ok' }));
    store.add(sampleRecord({ id: 'b', created_at: at(1 * minute), route: 'support', status: 'failed', http_status: 503 }));
    store.add(sampleRecord({ id: 'c', created_at: at(2 * minute), route: 'search', status: 'ok' }));
    store.add(sampleRecord({ id: 'd', created_at: at(3 * minute), route: 'support', status: 'ok' }));
    const ids = async (filter: Parameters<RecordStore['list']>[0]) => (await store.list(filter)).map((record) => record.id);

    expect(await ids({})).toEqual(['d', 'c', 'b', 'a']);
    expect(await ids({ route: 'support' })).toEqual(['d', 'b', 'a']);
    expect(await ids({ status: 'ok' })).toEqual(['d', 'c', 'a']);
    expect(await ids({ route: 'support', status: 'failed' })).toEqual(['b']);
    expect(await ids({ since: at(2 * minute) })).toEqual(['d', 'c']);
    expect(await ids({ since: base + 1 * minute })).toEqual(['d', 'c', 'b']);
    expect(await ids({ since: String(base + 3 * minute) })).toEqual(['d']);
    expect(await ids({ limit: 2 })).toEqual(['d', 'c']);
    expect(await ids({ route: 'nowhere' })).toEqual([]);
  });

  it('refuses a bad limit or since rather than guessing', async () => {
    const { store } = await openRecordStore(path());
    await expect(store.list({ limit: 0 })).rejects.toThrow(RangeError);
    await expect(store.list({ limit: 1001 })).rejects.toThrow(RangeError);
    await expect(store.list({ since: 'yesterday' })).rejects.toThrow(RangeError);
  });

  it('redacts secrets in attempt messages before the record is kept anywhere', async () => {
    const { store } = await openRecordStore(path(), { knownSecrets: () => new Set(['provider-secret-123']) });
    const record = sampleRecord({ id: 'req_secret' });
    record.attempts[0]!.message = 'bad key provider-secret-123 (also sk-proj-abcdefgh12345678)';
    store.add(record);
    const expected = 'bad key [redacted] (also [redacted])';
    expect((await store.get('req_secret'))?.attempts[0]?.message).toBe(expected);
    expect((await store.list())[0]?.attempts[0]?.message).toBe(expected);
  });
});

describe('RecordStore on a file', () => {
  it('keeps records across a reopen, and migrating twice is harmless', async () => {
    const file = join(directory, 'reopen.db');
    const first = await openRecordStore(file);
    first.store.add(sampleRecord({ id: 'req_durable' }));
    await first.store.close();
    await first.db.destroy();
    opened.splice(0);

    const second = await openRecordStore(file);
    await migrate(second.db);
    expect((await second.store.get('req_durable'))?.id).toBe('req_durable');
    expect((await second.store.list()).map((record) => record.id)).toEqual(['req_durable']);
  });
});
