/**
 * How long `GET /admin/stats` takes on a big store: seeds N records (and their spend rows) spread
 * over the last day through the gateway's own batched writes (which keep the per-minute rollups),
 * then asks a gateway serving that store for the dashboard's calls — the last hour by the minute
 * and the last day by 5 and by 15 minutes, callers' breakdowns included — over HTTP, the median of several
 * calls each (SQLite on its store thread, PostgreSQL through its pool). Target: the day in
 * ≤ 200 ms on SQLite (issue 28).
 *
 *   npm run bench:stats -- [--records N] [--runs R] [--postgres URL] [--sqlite-file FILE]
 *
 * `--sqlite-file FILE` keeps the seeded SQLite store in FILE (and when it was seeded in FILE.json)
 * and, when FILE already holds a store seeded with as many records, measures it without seeding
 * again (for 12 hours): seeding takes minutes, a measurement seconds. The windows then start
 * where they did at the seeding (and run to now), so the same records are asked for.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { AdminStatsResponse } from '../src/admin/admin-api-types.js';
import { createApp } from '../src/app.js';
import { ConfigSource } from '../src/config/config-source.js';
import type { RequestRecord } from '../src/core/request-record.js';
import type { SpendRow } from '../src/core/spend-row.js';
import { kyselyWrites } from '../src/store/kysely-writes.js';
import { migrate } from '../src/store/migrate.js';
import { openStore } from '../src/store/open-database.js';
import { postgresDatabase } from '../src/store/postgres-store.js';
import { SqliteInserts } from '../src/store/sqlite-inserts.js';

const DAY_MS = 86_400_000;
const SEED_BATCH = 2_000;
const ADMIN_TOKEN = 'stats-bench-admin-token';
/** A fleet's worth of variety: each is a facet the breakdowns group by. */
const ROUTES = ['chat', 'agents', 'summaries', 'embeddings'];
const CONNECTIONS = [
  { connection: 'openai', provider: 'openai', models: ['gpt-a', 'gpt-b'] },
  { connection: 'anthropic', provider: 'anthropic', models: ['claude-a', 'claude-b'] },
  { connection: 'bedrock', provider: 'bedrock', models: ['claude-c', 'llama-a'] },
];
const KEYS = 20;
/** How long a store kept with `--sqlite-file` is measured again before it is seeded anew. */
const KEPT_STORE_MAX_AGE_MS = 12 * 3_600_000;

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '7' },
    postgres: { type: 'string' },
    'sqlite-file': { type: 'string' },
  },
  strict: true,
});
const count = Number(values.records);
if (!Number.isInteger(count) || count < 1 || count > 5_000_000) throw new Error('--records must be a whole number from 1 to 5000000');
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1 || runs > 100) throw new Error('--runs must be a whole number from 1 to 100');
const keptFile = values['sqlite-file'];
const kept = keptFile === undefined ? undefined : keptSeeding(keptFile);
const nowMs = kept?.nowMs ?? Date.now();

const directory = mkdtempSync(join(tmpdir(), 'switchyard-stats-bench-'));
try {
  const path = keptFile ?? join(directory, 'store.db');
  if (kept) {
    console.log(`measuring ${path}: ${count} records seeded at ${new Date(nowMs).toISOString()}`);
  } else {
    // A store kept from another seeding goes, with its write-ahead log.
    for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}.json`]) rmSync(file, { force: true });
    const { db, sqlite } = openStore({ kind: 'sqlite', path });
    await migrate(db);
    const inserts = new SqliteInserts(sqlite);
    await seed(async (records, spend) => {
      inserts.records(records);
      inserts.spend(spend);
    });
    await db.destroy();
    if (keptFile !== undefined) writeFileSync(`${keptFile}.json`, JSON.stringify({ nowMs, count }));
  }
  await measure('sqlite', `store: { kind: sqlite, path: "${path}" }`);
  if (values.postgres) {
    const pgDb = postgresDatabase(values.postgres, { timeoutMs: 60_000 });
    await migrate(pgDb);
    const writes = kyselyWrites(pgDb);
    await seed(async (records, spend) => {
      await writes.records(records);
      await writes.spend(spend);
    });
    await pgDb.destroy();
    await measure('postgres', `store: { kind: postgres, url: "${values.postgres}", spill_dir: "${directory}" }`);
  }
} finally {
  rmSync(directory, { recursive: true, force: true });
}

/**
 * The seeding kept in `file`, when it holds `count` records (and the seeding finished) and is
 * recent enough: the windows run from where they started at the seeding to now, and the hour by
 * the minute is refused past 1 440 buckets.
 */
function keptSeeding(file: string): { nowMs: number } | undefined {
  if (!existsSync(file) || !existsSync(`${file}.json`)) return undefined;
  const seeding = JSON.parse(readFileSync(`${file}.json`, 'utf8')) as { nowMs: number; count: number };
  return seeding.count === count && Date.now() - seeding.nowMs < KEPT_STORE_MAX_AGE_MS ? { nowMs: seeding.nowMs } : undefined;
}

async function seed(write: (records: RequestRecord[], spend: SpendRow[]) => Promise<void>): Promise<void> {
  const startedAt = performance.now();
  const cpuBefore = process.cpuUsage();
  for (let start = 0; start < count; start += SEED_BATCH) {
    const records = Array.from({ length: Math.min(SEED_BATCH, count - start) }, (_, index) => seededRecord(start + index));
    await write(records, records.filter((record) => record.status === 'ok').map(spendOf));
  }
  const cpu = process.cpuUsage(cpuBefore);
  // The write path's cost per record (its rollups included), with making the records: compare builds by it.
  const cpuUsPerRecord = (cpu.user + cpu.system) / count;
  console.log(`seeded ${count} records over the last day in ${((performance.now() - startedAt) / 1000).toFixed(1)} s, CPU ${cpuUsPerRecord.toFixed(1)} µs a record`);
}

/** A gateway on the seeded store, asked over HTTP as the dashboard asks. */
async function measure(store: string, storeYaml: string): Promise<void> {
  const configFile = join(directory, `${store}.yaml`);
  writeFileSync(configFile, `${storeYaml}\nauth: { mode: none }\nadmin: { token: ${ADMIN_TOKEN} }\nconnections: { mock: { provider: mock } }\nroutes: { bench: { targets: [{ connection: mock, model: m }] } }\n`);
  const app = await createApp({ configSource: ConfigSource.load(configFile, { env: {} }), env: {} });
  try {
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    for (const [label, spanMs, bucketS] of [
      ['last hour by the minute', 3_600_000, 60],
      ['last day by 5 minutes', DAY_MS, 300],
      // The dashboard's Overview asks for the day by 15 minutes (docs/dashboard.md).
      ['last day by 15 minutes', DAY_MS, 900],
    ] as const) {
      const query = `since=${new Date(nowMs - spanMs).toISOString()}&bucket_s=${bucketS}`;
      // One untimed call first: the store's pages were last touched by the seeding's connection.
      await fetch(`${url}/admin/stats?${query}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then((response) => response.arrayBuffer());
      const timesMs: number[] = [];
      // The whole process's CPU (getrusage: every thread, the store thread's included) over the timed
      // calls: on a machine shared with other work a steadier figure than the wall time.
      const cpuBefore = process.cpuUsage();
      let body: AdminStatsResponse | undefined;
      let unavailable = 0;
      for (let run = 0; run < runs; run++) {
        const startedAt = performance.now();
        const response = await fetch(`${url}/admin/stats?${query}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        // Past the store's 1 s bound the gateway answers 503: a result to report, not a crash.
        if (response.status === 503) {
          await response.arrayBuffer();
          unavailable += 1;
          continue;
        }
        if (response.status !== 200) throw new Error(`GET /admin/stats?${query} → ${response.status}: ${await response.text()}`);
        body = (await response.json()) as AdminStatsResponse;
        timesMs.push(performance.now() - startedAt);
      }
      const cpu = process.cpuUsage(cpuBefore);
      const cpuMsPerCall = (cpu.user + cpu.system) / 1000 / runs;
      timesMs.sort((a, b) => a - b);
      const over = unavailable === 0 ? '' : `; ${unavailable} of ${runs} calls over the store's 1 s bound (503)`;
      if (!body) {
        console.log(`${store} ${label}: every call over the store's 1 s bound (503)`);
        continue;
      }
      const figures = `${body.totals.requests} requests in ${body.data.length} buckets, ${body.by_route.length} routes, ${body.by_deployment.length} deployments, ${body.by_key.length} keys`;
      console.log(`${store} ${label}: ${figures}; median ${timesMs[timesMs.length >> 1]!.toFixed(0)} ms, max ${timesMs.at(-1)!.toFixed(0)} ms of ${timesMs.length} calls${over}; CPU ${cpuMsPerCall.toFixed(0)} ms a call (gateway and client)`);
    }
  } finally {
    await app.close();
  }
}

/**
 * Shaped like real traffic: 4 routes over 6 deployments on 3 connections and 20 keys; 1 in 10
 * failed over (two attempts), 1 in 50 failed, 1 in 100 refused (rpm or budget), streams with a
 * first token.
 */
function seededRecord(index: number): RequestRecord {
  const createdMs = nowMs - DAY_MS + Math.floor((index / count) * DAY_MS);
  const refused = index % 100 === 3;
  const failedOver = index % 10 === 0;
  const failed = index % 50 === 1;
  const { connection, provider, models } = CONNECTIONS[Math.floor(index / ROUTES.length) % CONNECTIONS.length]!;
  const attempt = (n: number, kind: 'ok' | 'server_error', model: string) => ({
    n,
    connection,
    provider,
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
  const [primary, standby] = models as [string, string];
  const attempts = refused ? [] : failed ? [attempt(1, 'server_error', primary)] : failedOver ? [attempt(1, 'server_error', primary), attempt(2, 'ok', standby)] : [attempt(1, 'ok', primary)];
  const served = !refused && !failed;
  return {
    id: `req_stats_${index}`,
    created_at: new Date(createdMs).toISOString(),
    origin: 'caller',
    status: refused ? 'rejected' : failed ? 'failed' : 'ok',
    http_status: refused ? 429 : failed ? 502 : 200,
    key_name: `key-${index % KEYS}`,
    team: null,
    model_requested: ROUTES[index % ROUTES.length]!,
    route: ROUTES[index % ROUTES.length]!,
    served: served ? { connection, provider, model: failedOver ? standby : primary } : null,
    attempts,
    usage: served ? { input_tokens: 12, output_tokens: 64 } : null,
    cost_usd: served ? 0.000076 : null,
    first_token_ms: served ? 25 + (index % 300) : null,
    latency_ms: 60 + (index % 400),
    added_latency_ms: index % 7,
    deadline_ms: 600_000,
    idempotency_key: null,
    stream: true,
    error_code: refused ? (index % 200 === 3 ? 'rate_limit_exceeded' : 'budget_exceeded') : failed ? 'server_error' : null,
    error_message: null,
    ...(served ? { fallback: failedOver } : {}),
  };
}

function spendOf(record: RequestRecord): SpendRow {
  return {
    requestId: record.id,
    attemptN: record.attempts.length,
    keyId: `key_${record.key_name}`,
    keyName: record.key_name,
    route: record.route,
    connection: record.served!.connection,
    provider: record.served!.provider,
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
