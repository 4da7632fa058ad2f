import { afterAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { migrate } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-database.js';
import { postgresDatabase } from '../../src/store/postgres-store.js';
import type { DatabaseSchema } from '../../src/store/schema.js';
import { postgresForThisFile } from '../support/postgres-server.js';

const { available: postgresAvailable, server } = postgresForThisFile();
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

const stores: { name: string; skip: boolean; open: () => Promise<Kysely<DatabaseSchema>> }[] = [
  { name: 'SQLite', skip: false, open: async () => openStore({ kind: 'sqlite', path: ':memory:' }).db },
  { name: 'PostgreSQL', skip: !postgresAvailable, open: async () => postgresDatabase(await server().createDatabase('latency_fives'), { timeoutMs: 10_000 }) },
];

const sums = { attempts: 1, reached: 1, fallback: 0, routed: 1, input_tokens: 10, output_tokens: 20, cache_read_tokens: 0, cache_write_tokens: 0, cost_micros: 7 };

describe.each(stores)('a $name store made before the 5-minute twins', ({ skip, open }) => {
  it.skipIf(skip)('gains them summed from its per-minute rollups (latencies as callers’ figures), once', async () => {
    const db = await open();
    closers.push(() => db.destroy());
    await migrate(db);
    // As a store of the version before: per-minute rollups, no 5-minute twins.
    await db.schema.dropTable('latency_five_minutes').execute();
    await db.schema.dropTable('outcome_five_minutes').execute();
    const outcome = { origin: 'drill', name: '', detail: '', outcome: 'served_first_try', ...sums };
    await db
      .insertInto('outcome_minutes')
      .values([
        { ...outcome, facet: 'all', minute: 1_001, requests: 1 },
        { ...outcome, facet: 'all', minute: 1_003, requests: 2 },
        { ...outcome, facet: 'route', minute: 1_003, requests: 2 },
      ])
      .execute();
    await db
      .insertInto('latency_minutes')
      .values([
        { minute: 1_000, metric: 'added', bin: 3, count: 2 },
        { minute: 1_004, metric: 'added', bin: 3, count: 1 },
        { minute: 1_005, metric: 'added', bin: 3, count: 4 },
        { minute: 1_001, metric: 'first_token', bin: 120, count: 5 },
      ])
      .execute();
    await migrate(db);
    await migrate(db);
    const rows = await db.selectFrom('latency_five_minutes').selectAll().orderBy('minute').orderBy('metric').execute();
    expect(rows.map((row) => ({ ...row, minute: Number(row.minute), bin: Number(row.bin), count: Number(row.count) }))).toEqual([
      { origin: 'caller', minute: 1_000, metric: 'added', bin: 3, count: 3 },
      { origin: 'caller', minute: 1_000, metric: 'first_token', bin: 120, count: 5 },
      { origin: 'caller', minute: 1_005, metric: 'added', bin: 3, count: 4 },
    ]);
    const outcomes = await db.selectFrom('outcome_five_minutes').select(['facet', 'origin', 'minute', 'requests', 'cost_micros']).execute();
    expect(outcomes.map((row) => ({ ...row, minute: Number(row.minute), requests: Number(row.requests), cost_micros: Number(row.cost_micros) }))).toEqual([
      { facet: 'all', origin: 'drill', minute: 1_000, requests: 3, cost_micros: 14 },
    ]);
  });
});
