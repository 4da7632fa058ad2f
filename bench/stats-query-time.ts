/**
 * How long `GET /admin/stats` takes to compute on a big store: seeds N records (and a spend row
 * for each answered one) spread over the last day through the gateway's own batched writes (which
 * keep the per-minute rollups), then times the dashboard's two calls — the last hour by the
 * minute and the last day by 5 minutes — the way the gateway runs them (SQLite on its store
 * thread, PostgreSQL through its pool).
 *
 *   npm run build && node dist/bench/stats-query-time.js [--records N] [--postgres URL]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Kysely } from 'kysely';
import type { RequestRecord } from '../src/core/request-record.js';
import type { SpendRow } from '../src/core/spend-row.js';
import { kyselyWrites } from '../src/store/kysely-writes.js';
import { migrate } from '../src/store/migrate.js';
import { openStore } from '../src/store/open-database.js';
import { postgresDatabase } from '../src/store/postgres-store.js';
import { requestStats } from '../src/store/request-stats.js';
import type { DatabaseSchema } from '../src/store/schema.js';
import { SqliteInserts } from '../src/store/sqlite-inserts.js';
import { StoreThread } from '../src/store/store-thread.js';
import { threadDialect } from '../src/store/thread-dialect.js';

const DAY_MS = 86_400_000;
const SEED_BATCH = 2_000;
const RUNS = 5;

const { values } = parseArgs({ options: { records: { type: 'string', default: '1000000' }, postgres: { type: 'string' } }, strict: true });
const count = Number(values.records);
if (!Number.isInteger(count) || count < 1 || count > 5_000_000) throw new Error('--records must be a whole number from 1 to 5000000');
const nowMs = Date.now();

const directory = mkdtempSync(join(tmpdir(), 'switchyard-stats-bench-'));
try {
  const path = join(directory, 'store.db');
  const { db, sqlite } = openStore({ kind: 'sqlite', path });
  await migrate(db);
  const inserts = new SqliteInserts(sqlite);
  await seed(async (records, spend) => {
    inserts.records(records);
    inserts.spend(spend);
  });
  await db.destroy();
  const thread = new StoreThread(path, { callTimeoutMs: 60_000 });
  await thread.ready();
  await measure('sqlite', new Kysely<DatabaseSchema>({ dialect: threadDialect(thread) }));
  await thread.close();
  if (values.postgres) {
    const pgDb = postgresDatabase(values.postgres, { timeoutMs: 60_000 });
    await migrate(pgDb);
    const writes = kyselyWrites(pgDb);
    await seed(async (records, spend) => {
      await writes.records(records);
      await writes.spend(spend);
    });
    await measure('postgres', pgDb);
    await pgDb.destroy();
  }
} finally {
  rmSync(directory, { recursive: true, force: true });
}

async function seed(write: (records: RequestRecord[], spend: SpendRow[]) => Promise<void>): Promise<void> {
  const startedAt = performance.now();
  for (let start = 0; start < count; start += SEED_BATCH) {
    const records = Array.from({ length: Math.min(SEED_BATCH, count - start) }, (_, index) => seededRecord(start + index));
    await write(records, records.filter((record) => record.status === 'ok').map(spendOf));
  }
  console.log(`seeded ${count} records over the last day in ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);
}

async function measure(store: string, db: Kysely<DatabaseSchema>): Promise<void> {
  for (const [label, spanMs, bucketMs] of [
    ['last hour by the minute', 3_600_000, 60_000],
    ['last day by 5 minutes', DAY_MS, 300_000],
  ] as const) {
    const sinceMs = Math.floor((nowMs - spanMs) / bucketMs) * bucketMs;
    const bucketCount = Math.ceil((nowMs + 1 - sinceMs) / bucketMs);
    const timesMs: number[] = [];
    let requests = 0;
    for (let run = 0; run < RUNS; run++) {
      const startedAt = performance.now();
      const buckets = await requestStats(db, { sinceMs, bucketMs, bucketCount });
      timesMs.push(performance.now() - startedAt);
      requests = buckets.reduce((sum, bucket) => sum + bucket.requests, 0);
    }
    timesMs.sort((a, b) => a - b);
    console.log(`${store} ${label}: ${requests} requests in ${bucketCount} buckets, median ${timesMs[RUNS >> 1]!.toFixed(0)} ms, max ${timesMs.at(-1)!.toFixed(0)} ms of ${RUNS} runs`);
  }
}

/** Shaped like real traffic: 1 in 10 failed over (two attempts), 1 in 50 failed, streams with a first token. */
function seededRecord(index: number): RequestRecord {
  const createdMs = nowMs - DAY_MS + Math.floor((index / count) * DAY_MS);
  const failedOver = index % 10 === 0;
  const failed = index % 50 === 1;
  const attempt = (n: number, kind: 'ok' | 'server_error', model: string) => ({
    n,
    connection: 'bench-mock',
    provider: 'mock',
    model,
    kind,
    http_status: kind === 'ok' ? 200 : 503,
    error_type: null,
    message: kind === 'ok' ? null : 'Service Unavailable',
    retry_after_ms: null,
    started_ms: n === 1 ? 0 : 40,
    latency_ms: 30 + (index % 400),
    first_token_ms: kind === 'ok' ? 20 + (index % 300) : null,
    first_token_timeout_ms: null,
    committed: kind === 'ok',
    usage: kind === 'ok' ? { input_tokens: 12, output_tokens: 64 } : null,
    cost_usd: kind === 'ok' ? 0.000076 : null,
  });
  const attempts = failed ? [attempt(1, 'server_error', 'primary')] : failedOver ? [attempt(1, 'server_error', 'primary'), attempt(2, 'ok', 'standby')] : [attempt(1, 'ok', 'primary')];
  return {
    id: `req_stats_${index}`,
    created_at: new Date(createdMs).toISOString(),
    origin: 'caller',
    status: failed ? 'failed' : 'ok',
    http_status: failed ? 502 : 200,
    key_name: 'bench',
    model_requested: 'bench',
    route: 'bench',
    served: failed ? null : { connection: 'bench-mock', provider: 'mock', model: failedOver ? 'standby' : 'primary' },
    attempts,
    usage: failed ? null : { input_tokens: 12, output_tokens: 64 },
    cost_usd: failed ? null : 0.000076,
    first_token_ms: failed ? null : 25 + (index % 300),
    latency_ms: 60 + (index % 400),
    added_latency_ms: index % 7,
    deadline_ms: 600_000,
    idempotency_key: null,
    stream: true,
    error_code: failed ? 'all_attempts_failed' : null,
    error_message: null,
    ...(failed ? {} : { fallback: failedOver }),
  };
}

function spendOf(record: RequestRecord): SpendRow {
  return {
    requestId: record.id,
    attemptN: record.attempts.length,
    keyId: 'key_bench',
    keyName: 'bench',
    route: 'bench',
    connection: 'bench-mock',
    provider: 'mock',
    model: record.served!.model,
    inputTokens: 12,
    outputTokens: 64,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    costMicros: 76,
    estimated: false,
    priced: true,
    origin: 'caller',
    createdMs: Date.parse(record.created_at),
  };
}
