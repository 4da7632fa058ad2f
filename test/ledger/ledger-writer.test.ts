import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LedgerWriter, type LedgerWriterOptions } from '../../src/ledger/ledger-writer.js';
import { migrate } from '../../src/store/migrate.js';
import type { SpendRow } from '../../src/core/spend-row.js';
import { openStore } from '../../src/store/open-database.js';
import { SqliteInserts } from '../../src/store/sqlite-inserts.js';
import type { DatabaseSchema } from '../../src/store/schema.js';
import { spendRow, spendRows } from './spend-fixtures.js';

/** The store's inserts, counted per batch (one transaction each) and failed on demand. */
class FaultyInserts {
  failing = false;
  batches = 0;
  readonly #inserts: SqliteInserts;

  constructor(inserts: SqliteInserts) {
    this.#inserts = inserts;
  }

  readonly spend = async (rows: readonly SpendRow[]): Promise<void> => {
    if (this.failing) throw new Error('store unavailable (on purpose)');
    this.batches++;
    this.#inserts.spend(rows);
  };
}

let db: Kysely<DatabaseSchema>;
let store: FaultyInserts;
let writers: LedgerWriter[];

beforeEach(async () => {
  const opened = openStore({ kind: 'sqlite', path: ':memory:' });
  db = opened.db;
  await migrate(db);
  store = new FaultyInserts(new SqliteInserts(opened.sqlite));
  writers = [];
});

afterEach(async () => {
  store.failing = false;
  for (const writer of writers) await writer.close();
  await db.destroy();
});

function newWriter(options: Omit<LedgerWriterOptions, 'insert'> = {}): LedgerWriter {
  // A long interval by default, so only what a test does starts a write.
  const writer = new LedgerWriter({ flushIntervalMs: 60_000, onError: () => undefined, ...options, insert: store.spend });
  writers.push(writer);
  return writer;
}

async function storedKeys(): Promise<string[]> {
  const rows = await db.selectFrom('spend').select(['request_id', 'attempt_n']).orderBy('request_id').orderBy('attempt_n').execute();
  return rows.map((row) => `${row.request_id}#${row.attempt_n}`);
}

async function storedCostMicros(): Promise<number> {
  const row = await db.selectFrom('spend').select((eb) => eb.fn.sum<number | null>('cost_micros').as('total')).executeTakeFirstOrThrow();
  return Number(row.total ?? 0);
}

describe('LedgerWriter', () => {
  it('does not touch the database on enqueue', async () => {
    const writer = newWriter();
    writer.enqueue(spendRows(3));
    expect(writer.bufferedCount).toBe(3);
    expect(store.batches).toBe(0);
    expect(await storedKeys()).toEqual([]);
  });

  it('stores every column, booleans as 0/1', async () => {
    const writer = newWriter();
    writer.enqueue([
      spendRow({ requestId: 'req_x', attemptN: 1, estimated: true, cacheReadTokens: 6_000, cacheWriteTokens: 2_000, costMicros: 30_300 }),
      spendRow({ requestId: 'req_x', attemptN: 2, keyId: null, keyName: null, route: null, model: 'gpt-mock', costMicros: 0, priced: false, origin: 'probe' }),
    ]);
    await writer.flush();
    const rows = await db.selectFrom('spend').selectAll().orderBy('attempt_n').execute();
    expect(rows).toEqual([
      {
        request_id: 'req_x',
        attempt_n: 1,
        key_id: 'key_a',
        key_name: 'team-a',
        route: 'chat',
        connection: 'anthropic',
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        input_tokens: 10_000,
        output_tokens: 5_000,
        cache_read_tokens: 6_000,
        cache_write_tokens: 2_000,
        cache_write_1h_tokens: 0,
        cost_micros: 30_300,
        estimated: 1,
        priced: 1,
        probe: 0,
        origin: 'caller',
        created_ms: Date.parse('2025-06-01T12:00:00.000Z'),
      },
      expect.objectContaining({ attempt_n: 2, key_id: null, key_name: null, route: null, model: 'gpt-mock', cost_micros: 0, estimated: 0, priced: 0, probe: 1, origin: 'probe' }),
    ]);
  });

  it('writes a full batch without waiting for the timer, in one transaction per batch', async () => {
    const writer = newWriter({ batchSize: 4 });
    writer.enqueue(spendRows(3));
    expect(store.batches).toBe(0);
    writer.enqueue([spendRow({ requestId: 'req_3' })]);
    await vi.waitFor(() => expect(writer.bufferedCount).toBe(0), { timeout: 2_000, interval: 5 });
    await writer.flush();
    expect(await storedKeys()).toEqual(['req_0#1', 'req_1#1', 'req_2#1', 'req_3#1']);
    expect(store.batches).toBe(1);
  });

  it('writes a partial batch once the flush interval has passed', async () => {
    const writer = newWriter({ flushIntervalMs: 10 });
    writer.enqueue([spendRow({ requestId: 'req_timer' })]);
    await vi.waitFor(async () => expect(await storedKeys()).toEqual(['req_timer#1']), { timeout: 2_000, interval: 5 });
  });

  it('writes a large batch in one transaction', async () => {
    const writer = newWriter({ batchSize: 250 });
    writer.enqueue(spendRows(250));
    await writer.flush();
    expect(await storedKeys()).toHaveLength(250);
    expect(store.batches).toBe(1);
  });

  it('stores a replayed row once, so a cost is never counted twice', async () => {
    const writer = newWriter();
    const rows = [spendRow({ requestId: 'req_r', attemptN: 1 }), spendRow({ requestId: 'req_r', attemptN: 2 })];
    writer.enqueue(rows);
    await writer.flush();
    writer.enqueue(rows);
    writer.enqueue(rows);
    await writer.flush();
    expect(await storedKeys()).toEqual(['req_r#1', 'req_r#2']);
    expect(await storedCostMicros()).toBe(2 * 105_000);
  });

  it('keeps the rows while the store fails, reports it, and writes them once it returns', async () => {
    const errors: unknown[] = [];
    const writer = newWriter({ batchSize: 2, onError: (error) => errors.push(error) });
    store.failing = true;
    writer.enqueue(spendRows(5));
    await expect(writer.flush()).rejects.toThrow('store unavailable');
    expect(writer.bufferedCount).toBe(5);
    expect(errors.length).toBeGreaterThan(0);
    expect(await storedKeys()).toEqual([]);

    store.failing = false;
    await writer.flush();
    expect(await storedKeys()).toEqual(['req_0#1', 'req_1#1', 'req_2#1', 'req_3#1', 'req_4#1']);
    expect(writer.droppedCount).toBe(0);
  });

  it('retries on its own after a failure', async () => {
    const writer = newWriter({ flushIntervalMs: 5 });
    store.failing = true;
    writer.enqueue([spendRow({ requestId: 'req_retry' })]);
    await expect(writer.flush()).rejects.toThrow();
    store.failing = false;
    await vi.waitFor(async () => expect(await storedKeys()).toEqual(['req_retry#1']), { timeout: 2_000, interval: 5 });
  });

  it('drops the oldest rows past maxBuffered while the store fails, and counts them', async () => {
    const errors: unknown[] = [];
    const writer = newWriter({ maxBuffered: 3, onError: (error) => errors.push(error) });
    store.failing = true;
    writer.enqueue(spendRows(5));
    expect(writer.droppedCount).toBe(2);
    await expect(writer.flush()).rejects.toThrow();
    expect(errors.map(String)).toContainEqual(expect.stringContaining('dropped 2 spend row(s)'));
    store.failing = false;
    await writer.flush();
    expect(await storedKeys()).toEqual(['req_2#1', 'req_3#1', 'req_4#1']);
  });

  it('close() writes what is pending; rows enqueued afterwards are dropped and counted', async () => {
    const writer = newWriter({ flushIntervalMs: 5 });
    writer.enqueue(spendRows(2));
    await writer.close();
    expect(await storedKeys()).toEqual(['req_0#1', 'req_1#1']);
    writer.enqueue([spendRow({ requestId: 'late' })]);
    expect(writer.droppedCount).toBe(1);
    expect(writer.bufferedCount).toBe(0);
  });

  it('refuses nonsensical sizes', () => {
    expect(() => new LedgerWriter({ insert: store.spend, batchSize: 0 })).toThrow('LedgerWriter: batchSize must be a positive integer');
  });
});
