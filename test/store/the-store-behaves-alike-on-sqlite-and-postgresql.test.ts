import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConfiguredStore, type AppStore } from '../../src/store/open-configured-store.js';
import { hashSecret } from '../../src/keys/key-secret.js';
import { KeyStore } from '../../src/keys/key-store.js';
import { spentMicros } from '../../src/ledger/spend-query.js';
import { RecordStore, UnknownRecordError } from '../../src/records/record-store.js';
import { migrate } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-database.js';
import { migratePostgres } from '../../src/store/postgres-store.js';
import { spendRow } from '../ledger/spend-fixtures.js';
import { sampleRecord } from '../records/sample-record.js';
import { postgresAvailable, startPostgresServer, type PostgresServer } from '../support/postgres-server.js';

const silent = pino({ level: 'silent' });

/** One store kind as the gateway opens it, plus a way to run its migrations again. */
interface StoreKind {
  name: string;
  available: boolean;
  open(): Promise<{ store: AppStore; migrateAgain(): Promise<void> }>;
  cleanUp(): Promise<void>;
}

const directory = mkdtempSync(join(tmpdir(), 'switchyard-store-suite-'));
let opened = 0;

const sqliteFile: StoreKind = {
  name: 'an SQLite file',
  available: true,
  async open() {
    const path = join(directory, `store-${opened++}.db`);
    const store = await openConfiguredStore({ kind: 'sqlite', path, retention_days: 30, max_records: 100_000 }, silent);
    return {
      store,
      async migrateAgain() {
        const again = openStore({ kind: 'sqlite', path });
        await migrate(again.db);
        await again.db.destroy();
      },
    };
  },
  async cleanUp() {},
};

let server: PostgresServer | undefined;
const postgres: StoreKind = {
  name: 'PostgreSQL',
  available: postgresAvailable(),
  async open() {
    server ??= await startPostgresServer();
    const url = await server.createDatabase(`suite_${opened++}`);
    const store = await openConfiguredStore({ kind: 'postgres', url, retention_days: 30, spill_dir: directory }, silent);
    return { store, migrateAgain: () => migratePostgres(url) };
  },
  async cleanUp() {
    await server?.close();
  },
};

afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe.each([sqliteFile, postgres])('the store on $name', (kind) => {
  let store: AppStore;
  let migrateAgain: () => Promise<void>;

  beforeAll(async () => {
    if (!kind.available) return;
    ({ store, migrateAgain } = await kind.open());
  }, 60_000);
  afterAll(async () => {
    if (!kind.available) return;
    await store.writes.close();
    await store.db.destroy();
    await kind.cleanUp();
  });

  const test = it.skipIf(!kind.available);

  test('creates, finds, lists and revokes keys, a large budget read back as the same number', async () => {
    const keys = new KeyStore({ db: store.db });
    const created = await keys.create({ name: 'team-a', routes: ['support-*'], direct: false, budget: { usdMicros: 5_000_000_000, period: 'month' }, rpm: 60, tpm: null, expiresAt: null, teamId: null, kind: 'service', ownerId: null });
    const found = await keys.findByHash(hashSecret(created.secret));
    expect(found).toEqual(created.key);
    expect(found?.budget).toEqual({ usdMicros: 5_000_000_000, period: 'month' });
    expect(await keys.findByHash(hashSecret('sk-sy-not-a-key'))).toBeUndefined();
    expect((await keys.list()).map((key) => key.name)).toContain('team-a');
    expect(await keys.revoke(created.key.id)).toBe(true);
    expect(await keys.revoke(created.key.id)).toBe(false);
    expect((await keys.get(created.key.id))?.revokedAt).not.toBeNull();
  });

  test('stores a batch of records once however often it is written, and lists them with filters, newest first', async () => {
    const records = new RecordStore({ db: store.db, writer: { insert: (batch) => store.writes.records(batch), flushIntervalMs: 60_000 } });
    const older = sampleRecord({ id: 'req_older', created_at: '2025-01-01T00:00:00.000Z', route: 'support' });
    const newer = sampleRecord({ id: 'req_newer', created_at: '2025-01-02T00:00:00.000Z', route: 'support', status: 'failed', http_status: 502 });
    const other = sampleRecord({ id: 'req_other', created_at: '2025-01-03T00:00:00.000Z', route: 'billing', attempts: [] });
    await store.writes.records([older, newer, other]);
    // A batch whose commit was lost in transit, or replayed from the spill file.
    await store.writes.records([older, newer]);
    expect((await records.get('req_newer'))?.status).toBe('failed');
    expect((await records.list({ route: 'support' })).map((record) => record.id)).toEqual(['req_newer', 'req_older']);
    expect((await records.list({ status: 'failed' })).map((record) => record.id)).toEqual(['req_newer']);
    expect((await records.list({ since: '2025-01-02T00:00:00.000Z' })).map((record) => record.id)).toEqual(['req_other', 'req_newer']);
    const counts = await sql<{ requests: number; attempts: number }>`SELECT (SELECT count(*) FROM requests) AS requests, (SELECT count(*) FROM attempts) AS attempts`.execute(store.db);
    expect(counts.rows[0]).toEqual({ requests: 3, attempts: 4 });
    await records.close();
  });

  test('keeps each record\'s and spend row\'s origin, and lists by origin and key name, paging with before', async () => {
    const records = new RecordStore({ db: store.db, writer: { insert: (batch) => store.writes.records(batch), flushIntervalMs: 60_000 } });
    const at = (second: number) => `2025-02-01T00:00:${String(second).padStart(2, '0')}.000Z`;
    // Two records share a created time: the id orders them.
    const listed = [
      sampleRecord({ id: 'req_page_a', created_at: at(1), route: 'paged', key_name: 'team-a' }),
      sampleRecord({ id: 'req_page_b', created_at: at(2), route: 'paged', key_name: 'team-b' }),
      sampleRecord({ id: 'req_page_c', created_at: at(3), route: 'paged', key_name: 'team-a' }),
      sampleRecord({ id: 'req_page_d', created_at: at(3), route: 'paged', key_name: 'team-a' }),
      sampleRecord({ id: 'req_page_probe', created_at: at(4), route: null, key_name: null, origin: 'probe', probe: true }),
      sampleRecord({ id: 'req_page_drill', created_at: at(5), route: 'paged', key_name: null, origin: 'drill' }),
    ];
    for (const record of listed) records.add(record);
    const ids = async (filter: Parameters<RecordStore['list']>[0]) => (await records.list({ since: at(0), ...filter })).map((record) => record.id);
    expect(await ids({ origin: 'caller' })).toEqual(['req_page_d', 'req_page_c', 'req_page_b', 'req_page_a']);
    expect(await ids({ origin: 'probe' })).toEqual(['req_page_probe']);
    expect(await ids({ origin: 'drill' })).toEqual(['req_page_drill']);
    expect(await ids({ keyName: 'team-a' })).toEqual(['req_page_d', 'req_page_c', 'req_page_a']);
    expect(await ids({ keyName: 'team-a', limit: 1, before: 'req_page_d' })).toEqual(['req_page_c']);
    expect(await ids({ keyName: 'team-a', before: 'req_page_c' })).toEqual(['req_page_a']);
    expect(await ids({ before: 'req_page_drill', limit: 2 })).toEqual(['req_page_probe', 'req_page_d']);
    expect(await ids({ before: 'req_page_a' })).toEqual([]);
    await expect(records.list({ before: 'req_page_none' })).rejects.toThrow(UnknownRecordError);
    // Read back from the store itself, not the recent map: the column and the JSON agree.
    expect((await records.list({ origin: 'drill' }))[0]?.origin).toBe('drill');
    const stored = await sql<{ id: string; origin: string }>`SELECT id, origin FROM requests WHERE id LIKE 'req_page_%' ORDER BY id`.execute(store.db);
    expect(stored.rows).toEqual([
      { id: 'req_page_a', origin: 'caller' },
      { id: 'req_page_b', origin: 'caller' },
      { id: 'req_page_c', origin: 'caller' },
      { id: 'req_page_d', origin: 'caller' },
      { id: 'req_page_drill', origin: 'drill' },
      { id: 'req_page_probe', origin: 'probe' },
    ]);
    await store.writes.spend([
      spendRow({ requestId: 'req_page_a', keyId: 'key_origin' }),
      spendRow({ requestId: 'req_page_probe', keyId: null, keyName: null, origin: 'probe' }),
      spendRow({ requestId: 'req_page_drill', keyId: null, keyName: null, origin: 'drill' }),
    ]);
    const spend = await sql<{ request_id: string; origin: string; probe: number }>`SELECT request_id, origin, probe FROM spend WHERE request_id LIKE 'req_page_%' ORDER BY request_id`.execute(store.db);
    expect(spend.rows.map((row) => ({ ...row, probe: Number(row.probe) }))).toEqual([
      { request_id: 'req_page_a', origin: 'caller', probe: 0 },
      { request_id: 'req_page_drill', origin: 'drill', probe: 0 },
      { request_id: 'req_page_probe', origin: 'probe', probe: 1 },
    ]);
    await records.close();
  });

  test('sums a key\'s spend since a time, each row counted once', async () => {
    const day = Date.parse('2025-06-01T00:00:00.000Z');
    const rows = [
      spendRow({ requestId: 's1', keyId: 'key_sum', costMicros: 3_000_000_000, createdMs: day + 1 }),
      spendRow({ requestId: 's2', attemptN: 1, keyId: 'key_sum', costMicros: 250, createdMs: day + 2 }),
      spendRow({ requestId: 's2', attemptN: 2, keyId: 'key_sum', costMicros: 750, createdMs: day + 2 }),
      spendRow({ requestId: 's0', keyId: 'key_sum', costMicros: 99, createdMs: day - 1 }),
      spendRow({ requestId: 's3', keyId: 'key_else', costMicros: 5, createdMs: day + 3 }),
    ];
    await store.writes.spend(rows);
    await store.writes.spend(rows.slice(0, 2));
    expect(await spentMicros(store.db, { keyId: 'key_sum', sinceMs: day })).toBe(3_000_001_000);
    expect(await spentMicros(store.db, { keyId: 'key_nobody', sinceMs: day })).toBe(0);
  });

  test('prunes the oldest records in small batches, with their attempts, and keeps spend rows', async () => {
    const old = (index: number) => sampleRecord({ id: `req_aged_${index}`, created_at: new Date(Date.parse('2020-01-01T00:00:00.000Z') + index).toISOString() });
    await store.writes.records([old(0), old(1), old(2)]);
    await store.writes.spend([spendRow({ requestId: 'req_aged_0', keyId: 'key_pruned', createdMs: Date.parse('2020-01-01T00:00:00.000Z') })]);
    const cutoffMs = Date.parse('2021-01-01T00:00:00.000Z');
    expect(await store.writes.pruneRecords({ olderThanMs: cutoffMs, limit: 2 })).toBe(2);
    expect(await store.writes.pruneRecords({ olderThanMs: cutoffMs, limit: 2 })).toBe(1);
    expect(await store.writes.pruneRecords({ olderThanMs: cutoffMs, limit: 2 })).toBe(0);
    const left = await sql<{ requests: number; attempts: number }>`SELECT (SELECT count(*) FROM requests WHERE id LIKE 'req_aged_%') AS requests, (SELECT count(*) FROM attempts WHERE request_id LIKE 'req_aged_%') AS attempts`.execute(store.db);
    expect(left.rows[0]).toEqual({ requests: 0, attempts: 0 });
    expect(await spentMicros(store.db, { keyId: 'key_pruned', sinceMs: 0 })).toBe(105_000);
  });

  test('migrates again without touching what is stored', async () => {
    await store.writes.records([sampleRecord({ id: 'req_kept' })]);
    await migrateAgain();
    expect((await sql<{ id: string }>`SELECT id FROM requests WHERE id = 'req_kept'`.execute(store.db)).rows).toEqual([{ id: 'req_kept' }]);
  });
});
