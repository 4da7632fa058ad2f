import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LedgerWriter } from '../../src/ledger/ledger-writer.js';
import { spentMicros } from '../../src/ledger/spend-query.js';
import { migrate } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-database.js';
import { SqliteInserts } from '../../src/store/sqlite-inserts.js';
import type { DatabaseSchema } from '../../src/store/schema.js';
import { spendRow } from './spend-fixtures.js';

let db: Kysely<DatabaseSchema>;
let ledger: LedgerWriter;

beforeEach(async () => {
  const opened = openStore({ kind: 'sqlite', path: ':memory:' });
  db = opened.db;
  await migrate(db);
  const inserts = new SqliteInserts(opened.sqlite);
  ledger = new LedgerWriter({ insert: async (rows) => inserts.spend(rows), flushIntervalMs: 60_000 });
});

afterEach(async () => {
  await ledger.close();
  await db.destroy();
});

const day = (iso: string) => Date.parse(`${iso}T00:00:00.000Z`);

describe('spentMicros', () => {
  it("sums one key's rows since a time, leaving other keys and earlier rows out", async () => {
    ledger.enqueue([
      spendRow({ requestId: 'r1', keyId: 'key_a', costMicros: 1_000, createdMs: day('2025-05-31') + 1 }),
      // A request that recovered after a billed failure: both attempts count.
      spendRow({ requestId: 'r2', attemptN: 1, keyId: 'key_a', costMicros: 10_500, estimated: true, createdMs: day('2025-06-01') }),
      spendRow({ requestId: 'r2', attemptN: 2, keyId: 'key_a', costMicros: 10_400, createdMs: day('2025-06-01') }),
      spendRow({ requestId: 'r3', keyId: 'key_a', costMicros: 7, createdMs: day('2025-06-02') + 5 }),
      spendRow({ requestId: 'r4', keyId: 'key_b', costMicros: 999_999, createdMs: day('2025-06-01') + 5 }),
      spendRow({ requestId: 'r5', keyId: null, costMicros: 55, origin: 'probe', createdMs: day('2025-06-01') + 5 }),
    ]);
    await ledger.flush();

    expect(await spentMicros(db, { keyId: 'key_a', sinceMs: 0 })).toBe(1_000 + 10_500 + 10_400 + 7);
    // The period starts exactly at midnight: a row at that instant belongs to it.
    expect(await spentMicros(db, { keyId: 'key_a', sinceMs: day('2025-06-01') })).toBe(10_500 + 10_400 + 7);
    expect(await spentMicros(db, { keyId: 'key_a', sinceMs: day('2025-06-02') })).toBe(7);
    expect(await spentMicros(db, { keyId: 'key_b', sinceMs: day('2025-06-01') })).toBe(999_999);
  });

  it('is zero for a key without rows', async () => {
    expect(await spentMicros(db, { keyId: 'key_none', sinceMs: 0 })).toBe(0);
  });

  it('sums past 32-bit integers exactly', async () => {
    // $3,000 a row: each row alone passes 2^31 micro-dollars.
    ledger.enqueue([1, 2, 3].map((n) => spendRow({ requestId: `big_${n}`, costMicros: 3_000_000_000 })));
    await ledger.flush();
    expect(await spentMicros(db, { keyId: 'key_a', sinceMs: 0 })).toBe(9_000_000_000);
  });

  it('does not count a replayed row twice', async () => {
    const row = spendRow({ requestId: 'r_once', costMicros: 42 });
    ledger.enqueue([row]);
    await ledger.flush();
    ledger.enqueue([row]);
    await ledger.flush();
    expect(await spentMicros(db, { keyId: 'key_a', sinceMs: 0 })).toBe(42);
  });
});
