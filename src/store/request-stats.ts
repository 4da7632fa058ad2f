import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DatabaseSchema } from './schema.js';
import { percentileOfHistogram, type HistogramBin } from './percentile-of-histogram.js';

export interface StatsRange {
  /** Start of the first bucket, epoch milliseconds. */
  sinceMs: number;
  bucketMs: number;
  bucketCount: number;
}

/** One time bucket's figures; shares and percentiles are null when the bucket has nothing to measure. */
export interface StatsBucket {
  /** Start of the bucket, epoch milliseconds. */
  startMs: number;
  requests: number;
  /** Of all requests, the share that ended `ok`. */
  okShare: number | null;
  /** Of the requests a named route served, the share a non-primary target served. */
  fallbackShare: number | null;
  attemptsPerRequest: number | null;
  addedLatencyP50Ms: number | null;
  addedLatencyP99Ms: number | null;
  firstTokenP50Ms: number | null;
  spendMicros: number;
}

/**
 * Milliseconds rounded down to two significant digits (exact below 100 ms), in SQL that reads
 * the same on SQLite and PostgreSQL (integer division on integer columns): the percentiles come
 * from a histogram of at most a few hundred bins per bucket, so the rows a query returns stay
 * bounded however many requests the range holds. With `when`, only the requests it holds are
 * measured; the others fall in a null bin.
 */
function binOf(column: 'added_latency_ms' | 'first_token_ms', when: RawBuilder<boolean> = sql<boolean>`1 = 1`): RawBuilder<number | null> {
  const value = sql.ref(column);
  return sql<number | null>`CASE
    WHEN NOT (${when}) OR ${value} IS NULL THEN NULL
    WHEN ${value} < 100 THEN ${value}
    WHEN ${value} < 1000 THEN ${value} / 10 * 10
    WHEN ${value} < 10000 THEN ${value} / 100 * 100
    WHEN ${value} < 100000 THEN ${value} / 1000 * 1000
    WHEN ${value} < 1000000 THEN ${value} / 10000 * 10000
    ELSE ${value} / 100000 * 100000 END`;
}

/**
 * The dashboard's time-bucketed figures, grouped in the store (SQLite and PostgreSQL alike).
 * Two scans of the requests in the range, each read from the covering `requests_stats` index
 * alone (never the wide rows): one grouped by bucket and added-latency bin, which also carries
 * the counts (summed here over the bins), one by bucket and first-token bin; and one of the
 * ledger. Every bucket of the range is in the answer, empty ones included, oldest first.
 */
export async function requestStats(db: Kysely<DatabaseSchema>, range: StatsRange): Promise<StatsBucket[]> {
  const untilMs = range.sinceMs + range.bucketMs * range.bucketCount;
  // CAST: SQLite may bind a whole JS number as a real, making the division fractional.
  const bucket = sql<number>`CAST((created_ms - ${range.sinceMs}) / ${range.bucketMs} AS INTEGER)`;
  // No other condition: a filter on status would lead the planner to an index without the figures.
  const inRange = sql<boolean>`created_ms >= ${range.sinceMs} AND created_ms < ${untilMs}`;
  const answered = sql<boolean>`status = 'ok'`;
  // One after another: on SQLite every call queues on the store thread, and each call's time bound
  // would otherwise include the wait for the others.
  const byAddedLatency = await sql<CountsRow>`SELECT ${bucket} AS bucket, ${binOf('added_latency_ms', answered)} AS bin, COUNT(*) AS requests,
        SUM(CASE WHEN ${answered} THEN 1 ELSE 0 END) AS ok,
        SUM(fallback) AS fallback, COUNT(fallback) AS routed,
        SUM(attempt_count) AS attempts, COUNT(attempt_count) AS counted
      FROM requests WHERE ${inRange} GROUP BY 1, 2`.execute(db);
  const byFirstToken = await sql<BinRow>`SELECT ${bucket} AS bucket, ${binOf('first_token_ms')} AS bin, COUNT(*) AS count
      FROM requests WHERE ${inRange} GROUP BY 1, 2`.execute(db);
  const spend = await sql<SpendRow>`SELECT ${bucket} AS bucket, SUM(cost_micros) AS micros FROM spend WHERE ${inRange} GROUP BY 1`.execute(db);
  const buckets = Array.from({ length: range.bucketCount }, () => ({
    requests: 0,
    ok: 0,
    fallback: 0,
    routed: 0,
    attempts: 0,
    counted: 0,
    added: [] as HistogramBin[],
    firstToken: [] as HistogramBin[],
    spendMicros: 0,
  }));
  // PostgreSQL answers COUNT and SUM of bigint as strings; SQLite as numbers.
  for (const row of byAddedLatency.rows) {
    const entry = buckets[Number(row.bucket)];
    if (!entry) continue;
    entry.requests += Number(row.requests);
    entry.ok += Number(row.ok ?? 0);
    entry.fallback += Number(row.fallback ?? 0);
    entry.routed += Number(row.routed ?? 0);
    entry.attempts += Number(row.attempts ?? 0);
    entry.counted += Number(row.counted ?? 0);
    if (row.bin !== null) entry.added.push({ value: Number(row.bin), count: Number(row.ok ?? 0) });
  }
  for (const row of byFirstToken.rows) {
    if (row.bin !== null) buckets[Number(row.bucket)]?.firstToken.push({ value: Number(row.bin), count: Number(row.count) });
  }
  for (const row of spend.rows) {
    const entry = buckets[Number(row.bucket)];
    if (entry) entry.spendMicros = Number(row.micros ?? 0);
  }
  return buckets.map((entry, index) => ({
    startMs: range.sinceMs + index * range.bucketMs,
    requests: entry.requests,
    okShare: entry.requests === 0 ? null : entry.ok / entry.requests,
    fallbackShare: entry.routed === 0 ? null : entry.fallback / entry.routed,
    attemptsPerRequest: entry.counted === 0 ? null : entry.attempts / entry.counted,
    addedLatencyP50Ms: percentileOfHistogram(entry.added, 0.5),
    addedLatencyP99Ms: percentileOfHistogram(entry.added, 0.99),
    firstTokenP50Ms: percentileOfHistogram(entry.firstToken, 0.5),
    spendMicros: entry.spendMicros,
  }));
}

type Counted = number | string | bigint | null;

interface CountsRow {
  bucket: number | string;
  bin: Counted;
  requests: Counted;
  ok: Counted;
  fallback: Counted;
  routed: Counted;
  attempts: Counted;
  counted: Counted;
}

interface BinRow {
  bucket: number | string;
  metric: string;
  bin: Counted;
  count: Counted;
}

interface SpendRow {
  bucket: number | string;
  micros: Counted;
}
