import type Database from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sampleRecord } from '../../test/records/sample-record.js';
import { migrate } from '../store/migrate.js';
import { openStore } from '../store/open-database.js';
import { SqliteInserts } from '../store/sqlite-inserts.js';
import type { DatabaseSchema } from '../store/schema.js';
import type { RequestRecord } from '../core/request-record.js';
import { RecordWriter } from './record-writer.js';

/** The store's inserts, counted per batch (one transaction each) and failed on demand. */
class FaultyInserts {
  failing = false;
  batches = 0;
  readonly #inserts: SqliteInserts;

  constructor(inserts: SqliteInserts) {
    this.#inserts = inserts;
  }

  readonly records = async (batch: readonly RequestRecord[]): Promise<void> => {
    if (this.failing) throw new Error('store unavailable (on purpose)');
    this.batches++;
    this.#inserts.records(batch);
  };
}

let db: Kysely<DatabaseSchema>;
let sqlite: Database.Database;
let store: FaultyInserts;
let writers: RecordWriter[];

beforeEach(async () => {
  const opened = openStore({ kind: 'sqlite', path: ':memory:' });
  db = opened.db;
  sqlite = opened.sqlite;
  await migrate(db);
  store = new FaultyInserts(new SqliteInserts(sqlite));
  writers = [];
});

afterEach(async () => {
  store.failing = false;
  for (const writer of writers) await writer.close();
  await db.destroy();
});

function newWriter(options: { batchSize?: number; flushIntervalMs?: number; maxBuffered?: number; onError?: (error: unknown) => void } = {}): RecordWriter {
  // A long interval by default, so only what a test does starts a write.
  const writer = new RecordWriter({ flushIntervalMs: 60_000, onError: () => undefined, ...options, insert: store.records });
  writers.push(writer);
  return writer;
}

function records(count: number, prefix = 'req') {
  return Array.from({ length: count }, (_, index) => sampleRecord({ id: `${prefix}_${index}` }));
}

async function storedIds(): Promise<string[]> {
  const rows = await db.selectFrom('requests').select('id').orderBy('id').execute();
  return rows.map((row) => row.id);
}

async function attemptCount(): Promise<number> {
  const row = await db.selectFrom('attempts').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}

describe('RecordWriter', () => {
  it('does not touch the database on enqueue', async () => {
    const writer = newWriter();
    for (const record of records(3)) writer.enqueue(record);
    expect(writer.bufferedCount).toBe(3);
    expect(store.batches).toBe(0);
    expect(await storedIds()).toEqual([]);
  });

  it('starts a write when a batch is full, without waiting for the timer', async () => {
    const writer = newWriter({ batchSize: 4 });
    for (const record of records(3)) writer.enqueue(record);
    expect(writer.bufferedCount).toBe(3);
    writer.enqueue(sampleRecord({ id: 'req_3' }));
    await vi.waitFor(() => expect(writer.bufferedCount).toBe(0), { timeout: 2_000, interval: 5 });
    await writer.flush();
    expect(await storedIds()).toEqual(['req_0', 'req_1', 'req_2', 'req_3']);
  });

  it('writes a partial batch once the flush interval has passed', async () => {
    const writer = newWriter({ flushIntervalMs: 10 });
    writer.enqueue(sampleRecord({ id: 'req_timer' }));
    await vi.waitFor(async () => expect(await storedIds()).toEqual(['req_timer']), { timeout: 2_000, interval: 5 });
    expect(writer.bufferedCount).toBe(0);
  });

  it('flush() writes everything enqueued before it, one transaction per batch', async () => {
    const writer = newWriter({ batchSize: 2 });
    for (const record of records(5)) writer.enqueue(record);
    // The full batches may already be on their way; flush must still cover all five.
    await writer.flush();
    expect(await storedIds()).toEqual(['req_0', 'req_1', 'req_2', 'req_3', 'req_4']);
    expect(await attemptCount()).toBe(10);
    expect(store.batches).toBe(3);
    expect(writer.bufferedCount).toBe(0);
  });

  it('stores the whole record as JSON and the filterable columns beside it', async () => {
    const writer = newWriter();
    const record = sampleRecord({ id: 'req_json', stream: true, latency_ms: 12.6 });
    writer.enqueue(record);
    await writer.flush();
    const row = await db.selectFrom('requests').selectAll().where('id', '=', 'req_json').executeTakeFirstOrThrow();
    expect(JSON.parse(row.record_json)).toEqual(record);
    expect(row).toMatchObject({ status: 'ok', http_status: 200, route: 'support', stream: 1, latency_ms: 13, created_ms: Date.parse(record.created_at) });
    const kinds = await db.selectFrom('attempts').select(['kind', (eb) => eb.fn.countAll<number>().as('count')]).groupBy('kind').orderBy('kind').execute();
    expect(kinds).toEqual([
      { kind: 'ok', count: 1 },
      { kind: 'server_error', count: 1 },
    ]);
  });

  it('stores a replayed batch once', async () => {
    const writer = newWriter();
    const batch = records(3);
    for (const record of batch) writer.enqueue(record);
    await writer.flush();
    for (const record of batch) writer.enqueue(record);
    await writer.flush();
    expect(await storedIds()).toEqual(['req_0', 'req_1', 'req_2']);
    expect(await attemptCount()).toBe(6);
  });

  it('keeps the records when the store fails, reports it, and writes them on the next flush', async () => {
    const errors: unknown[] = [];
    const writer = newWriter({ batchSize: 2, onError: (error) => errors.push(error) });
    store.failing = true;
    for (const record of records(5)) writer.enqueue(record);
    await expect(writer.flush()).rejects.toThrow('store unavailable');
    expect(writer.bufferedCount).toBe(5);
    expect(errors.length).toBeGreaterThan(0);
    expect(await storedIds()).toEqual([]);

    store.failing = false;
    writer.enqueue(sampleRecord({ id: 'req_5' }));
    await writer.flush();
    expect(await storedIds()).toEqual(['req_0', 'req_1', 'req_2', 'req_3', 'req_4', 'req_5']);
    expect(writer.bufferedCount).toBe(0);
    expect(writer.droppedCount).toBe(0);
  });

  it('rolls back a batch that failed halfway, so the retry stores it exactly once', async () => {
    const writer = newWriter();
    for (const record of records(2)) writer.enqueue(record);
    // The requests rows go in, the first attempts row fails: the transaction must undo both.
    sqlite.exec(`CREATE TEMP TRIGGER refuse_attempts BEFORE INSERT ON attempts BEGIN SELECT RAISE(ABORT, 'store unavailable (on purpose)'); END`);
    await expect(writer.flush()).rejects.toThrow('store unavailable');
    expect(await storedIds()).toEqual([]);
    sqlite.exec('DROP TRIGGER refuse_attempts');
    await writer.flush();
    expect(await storedIds()).toEqual(['req_0', 'req_1']);
    expect(await attemptCount()).toBe(4);
  });

  it('drops the oldest records past maxBuffered while the store fails, and counts and reports them', async () => {
    const errors: unknown[] = [];
    const writer = newWriter({ maxBuffered: 3, onError: (error) => errors.push(error) });
    store.failing = true;
    for (const record of records(5)) writer.enqueue(record);
    expect(writer.droppedCount).toBe(2);
    expect(writer.bufferedCount).toBe(3);
    await expect(writer.flush()).rejects.toThrow();
    expect(errors.map(String)).toContainEqual(expect.stringContaining('dropped 2 record(s)'));

    store.failing = false;
    await writer.flush();
    expect(await storedIds()).toEqual(['req_2', 'req_3', 'req_4']);
  });

  it('close() writes what is pending, stops the timer and counts later records as dropped', async () => {
    const writer = newWriter({ flushIntervalMs: 5 });
    for (const record of records(2)) writer.enqueue(record);
    await writer.close();
    expect(await storedIds()).toEqual(['req_0', 'req_1']);
    writer.enqueue(sampleRecord({ id: 'late' }));
    expect(writer.droppedCount).toBe(1);
    expect(writer.bufferedCount).toBe(0);
  });

  it('refuses nonsensical sizes', () => {
    expect(() => new RecordWriter({ insert: store.records, batchSize: 0 })).toThrow(RangeError);
    expect(() => new RecordWriter({ insert: store.records, flushIntervalMs: 1.5 })).toThrow(RangeError);
  });
});
