import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConfiguredStore, type AppStore } from '../../src/store/open-configured-store.js';
import { requestStats } from '../../src/store/request-stats.js';
import { spendRow } from '../ledger/spend-fixtures.js';
import { sampleRecord } from '../records/sample-record.js';
import { postgresForThisFile } from '../support/postgres-server.js';

const silent = pino({ level: 'silent' });
const directory = mkdtempSync(join(tmpdir(), 'switchyard-rollups-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const { available: postgresAvailable, server } = postgresForThisFile();

const MINUTE_MS = 60_000;
const FIVE_MINUTES_MS = 5 * MINUTE_MS;
// Two whole minutes of one whole five, long enough ago that nothing else writes there.
const startMs = Math.floor(Date.now() / FIVE_MINUTES_MS) * FIVE_MINUTES_MS - 60 * MINUTE_MS;
const at = (offsetMs: number) => new Date(startMs + offsetMs).toISOString();

const records = [
  sampleRecord({ id: 'req_roll_1', created_at: at(1_000), status: 'ok', added_latency_ms: 3, first_token_ms: 120, fallback: false }),
  sampleRecord({ id: 'req_roll_2', created_at: at(2_000), status: 'ok', added_latency_ms: 5, first_token_ms: 250, fallback: true }),
  sampleRecord({ id: 'req_roll_3', created_at: at(MINUTE_MS + 1_000), status: 'failed', added_latency_ms: 1, first_token_ms: null, attempts: [] }),
];

const kinds = [
  { name: 'an SQLite file', skip: false, open: () => openConfiguredStore({ kind: 'sqlite', path: join(directory, 'rollups.db'), retention_days: 30, max_records: 100_000 }, silent) },
  {
    name: 'PostgreSQL',
    skip: !postgresAvailable,
    open: async () => openConfiguredStore({ kind: 'postgres', url: await server().createDatabase('rollups'), retention_days: 30, spill_dir: directory }, silent),
  },
];

describe.each(kinds)('the per-minute rollups on $name', ({ skip, open }) => {
  let store: AppStore;
  beforeAll(async () => {
    if (!skip) store = await open();
  }, 60_000);
  afterAll(async () => {
    if (skip) return;
    await store.writes.close();
    await store.db.destroy();
  });

  it.skipIf(skip)('count a batch written twice (a lost commit, a replayed spill) once, and its spend once', async () => {
    await store.writes.records(records);
    await store.writes.records(records);
    const spend = [spendRow({ requestId: 'req_roll_1', attemptN: 1, costMicros: 1_500, createdMs: startMs + 1_000 }), spendRow({ requestId: 'req_roll_2', attemptN: 2, costMicros: 2_500, createdMs: startMs + 2_000 })];
    await store.writes.spend(spend);
    await store.writes.spend(spend);

    const [first, second] = await requestStats(store.db, { sinceMs: startMs, bucketMs: MINUTE_MS, bucketCount: 2 });
    expect(first).toEqual({
      startMs,
      requests: 2,
      okShare: 1,
      fallbackShare: 0.5,
      attemptsPerRequest: records[0]!.attempts.length,
      addedLatencyP50Ms: 3,
      addedLatencyP99Ms: 5,
      firstTokenP50Ms: 120,
      spendMicros: 4_000,
    });
    expect(second).toEqual({
      startMs: startMs + MINUTE_MS,
      requests: 1,
      okShare: 0,
      fallbackShare: null,
      attemptsPerRequest: 0,
      addedLatencyP50Ms: null,
      addedLatencyP99Ms: null,
      firstTokenP50Ms: null,
      spendMicros: 0,
    });
    const [both] = await requestStats(store.db, { sinceMs: startMs, bucketMs: 2 * MINUTE_MS, bucketCount: 1 });
    expect(both).toMatchObject({ requests: 3, okShare: 2 / 3, spendMicros: 4_000 });
    // Buckets of 5 minutes read the 5-minute twin of the histograms: the same figures, each record counted once.
    const [five] = await requestStats(store.db, { sinceMs: startMs, bucketMs: FIVE_MINUTES_MS, bucketCount: 1 });
    expect(five).toEqual({ ...both, addedLatencyP50Ms: 3, addedLatencyP99Ms: 5, firstTokenP50Ms: 120 });
    expect(await latencyFiveMinuteCounts()).toEqual([{ metric: 'added', count: 2 }, { metric: 'first_token', count: 2 }]);
  });

  it.skipIf(skip)('are pruned with the records, the spend minutes kept like the ledger', async () => {
    await store.writes.pruneRecords({ olderThanMs: startMs + MINUTE_MS, limit: 100 });
    const [first, second] = await requestStats(store.db, { sinceMs: startMs, bucketMs: MINUTE_MS, bucketCount: 2 });
    expect(first).toMatchObject({ requests: 0, addedLatencyP50Ms: null, spendMicros: 4_000 });
    expect(second).toMatchObject({ requests: 1 });
    expect(await latencyFiveMinuteCounts()).toEqual([]);
  });

  /** What the 5-minute histograms hold for the records' five minutes, per metric. */
  async function latencyFiveMinuteCounts(): Promise<{ metric: string; count: number }[]> {
    const rows = await store.db
      .selectFrom('latency_five_minutes')
      .select(['metric', (eb) => eb.fn.sum<number | string>('count').as('count')])
      .where('minute', '=', startMs / MINUTE_MS)
      .groupBy('metric')
      .orderBy('metric')
      .execute();
    return rows.map(({ metric, count }) => ({ metric, count: Number(count) }));
  }
});
