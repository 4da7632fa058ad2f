import { afterAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import type { RequestRecord } from '../../src/core/request-record.js';
import { breakdownStats } from '../../src/store/breakdown-stats.js';
import { kyselyWrites } from '../../src/store/kysely-writes.js';
import { migrate } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-database.js';
import { postgresDatabase } from '../../src/store/postgres-store.js';
import type { DatabaseSchema } from '../../src/store/schema.js';
import { SqliteInserts } from '../../src/store/sqlite-inserts.js';
import { postgresForThisFile } from '../support/postgres-server.js';

const { available: postgresAvailable, server } = postgresForThisFile();
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

const DAY_MS = 86_400_000;
const nowMs = Math.floor(Date.now() / 60_000) * 60_000;

function record(id: string, createdMs: number, fields: Partial<RequestRecord> = {}): RequestRecord {
  return {
    id,
    created_at: new Date(createdMs).toISOString(),
    origin: 'caller',
    status: 'ok',
    http_status: 200,
    key_name: 'team',
    team: null,
    model_requested: 'chat',
    route: 'chat',
    served: { connection: 'c', provider: 'mock', model: 'm' },
    attempts: [
      { n: 1, connection: 'c', provider: 'mock', model: 'm', kind: 'ok', http_status: 200, error_type: null, message: null, retry_after_ms: null, started_ms: 0, latency_ms: 5, first_token_ms: 40, first_token_timeout_ms: null, committed: true, usage: { input_tokens: 10, output_tokens: 3 }, cost_usd: 0.5 },
    ],
    usage: { input_tokens: 10, output_tokens: 3 },
    cost_usd: 0.5,
    first_token_ms: 40,
    latency_ms: 6,
    added_latency_ms: 1,
    deadline_ms: null,
    idempotency_key: null,
    stream: true,
    error_code: null,
    error_message: null,
    fallback: false,
    ...fields,
  };
}

interface Writes {
  db: Kysely<DatabaseSchema>;
  records(batch: RequestRecord[]): Promise<void>;
  prune(olderThanMs: number): Promise<number>;
}

const stores: { name: string; skip: boolean; open(): Promise<Writes> }[] = [
  {
    name: 'SQLite',
    skip: false,
    async open() {
      const { db, sqlite } = openStore({ kind: 'sqlite', path: ':memory:' });
      await migrate(db);
      const inserts = new SqliteInserts(sqlite);
      closers.push(() => db.destroy());
      return { db, records: async (batch) => inserts.records(batch), prune: async (olderThanMs) => inserts.pruneRecords({ olderThanMs, limit: 1_000 }) };
    },
  },
  {
    name: 'PostgreSQL',
    skip: !postgresAvailable,
    async open() {
      const db = postgresDatabase(await server().createDatabase('breakdowns'), { timeoutMs: 10_000 });
      closers.push(() => db.destroy());
      await migrate(db);
      const writes = kyselyWrites(db);
      return { db, records: (batch) => writes.records(batch), prune: (olderThanMs) => writes.pruneRecords({ olderThanMs, limit: 1_000 }) };
    },
  },
];

describe.each(stores)('the breakdown rollups on $name', ({ skip, open }) => {
  it.skipIf(skip)('count a replayed batch once, keep origins apart, and are pruned with the records', async () => {
    const store = await open();
    const old = nowMs - 40 * DAY_MS;
    const batch = [record('a', nowMs), record('b', nowMs, { origin: 'drill' }), record('c', old)];
    await store.records(batch);
    await store.records(batch);
    const range = { sinceMs: old, bucketMs: DAY_MS, bucketCount: 41 };
    const callers = await breakdownStats(store.db, range, ['caller']);
    expect(callers.bucketOutcomes.map(({ bucket, outcome, requests, input_tokens }) => ({ bucket, outcome, requests, input_tokens }))).toEqual([
      { bucket: 0, outcome: 'served_first_try', requests: 1, input_tokens: 10 },
      { bucket: 40, outcome: 'served_first_try', requests: 1, input_tokens: 10 },
    ]);
    expect(callers.attemptMinutes.reduce((sum, row) => sum + row.attempts, 0)).toBe(2);
    expect((await breakdownStats(store.db, range, ['drill'])).bucketOutcomes).toMatchObject([{ bucket: 40, requests: 1 }]);

    expect(await store.prune(nowMs - 30 * DAY_MS)).toBe(1);
    const pruned = await breakdownStats(store.db, range, ['caller', 'drill']);
    expect(pruned.bucketOutcomes.map(({ bucket, requests }) => ({ bucket, requests }))).toEqual([{ bucket: 40, requests: 2 }]);
    for (const rows of [pruned.facetOutcomes, pruned.facetFirstTokens, pruned.deploymentFirstTokens, pruned.attemptMinutes]) {
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((row) => !('minute' in row) || (row as { minute: number }).minute >= (nowMs - 30 * DAY_MS) / 60_000)).toBe(true);
    }
    expect(pruned.deploymentFirstTokens.every((row) => row.bucket === 40)).toBe(true);
  });
});
