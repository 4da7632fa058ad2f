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
 * bounded however many requests the range holds.
 */
function binOf(column: 'added_latency_ms' | 'first_token_ms'): RawBuilder<number> {
  const value = sql.ref(column);
  return sql<number>`CASE
    WHEN ${value} < 100 THEN ${value}
    WHEN ${value} < 1000 THEN ${value} / 10 * 10
    WHEN ${value} < 10000 THEN ${value} / 100 * 100
    WHEN ${value} < 100000 THEN ${value} / 1000 * 1000
    WHEN ${value} < 1000000 THEN ${value} / 10000 * 10000
    ELSE ${value} / 100000 * 100000 END`;
}

/**
 * The dashboard's time-bucketed figures, grouped in the store (SQLite and PostgreSQL alike):
 * three statements, each one range scan on a `created_ms` index. Every bucket of the range is in
 * the answer, empty ones included, oldest first.
 */
export async function requestStats(db: Kysely<DatabaseSchema>, range: StatsRange): Promise<StatsBucket[]> {
  const untilMs = range.sinceMs + range.bucketMs * range.bucketCount;
  // CAST: SQLite may bind a whole JS number as a real, making the division fractional.
  const bucket = sql<number>`CAST((created_ms - ${range.sinceMs}) / ${range.bucketMs} AS INTEGER)`;
  const inRange = sql<boolean>`created_ms >= ${range.sinceMs} AND created_ms < ${untilMs}`;
  const [counts, bins, spend] = await Promise.all([
    sql<CountsRow>`SELECT ${bucket} AS bucket, COUNT(*) AS requests,
        SUM(CASE WHEN status = 'ok' THEN 1 ELSE 0 END) AS ok,
        SUM(fallback) AS fallback, COUNT(fallback) AS routed,
        SUM(attempt_count) AS attempts, COUNT(attempt_count) AS counted
      FROM requests WHERE ${inRange} GROUP BY 1`.execute(db),
    sql<BinRow>`SELECT ${bucket} AS bucket, 'added' AS metric, ${binOf('added_latency_ms')} AS bin, COUNT(*) AS count
        FROM requests WHERE ${inRange} AND status = 'ok' AND added_latency_ms IS NOT NULL GROUP BY 1, 3
      UNION ALL
      SELECT ${bucket} AS bucket, 'first_token' AS metric, ${binOf('first_token_ms')} AS bin, COUNT(*) AS count
        FROM requests WHERE ${inRange} AND first_token_ms IS NOT NULL GROUP BY 1, 3`.execute(db),
    sql<SpendRow>`SELECT ${bucket} AS bucket, SUM(cost_micros) AS micros FROM spend WHERE ${inRange} GROUP BY 1`.execute(db),
  ]);
  const buckets = Array.from({ length: range.bucketCount }, () => ({
    counts: undefined as CountsRow | undefined,
    added: [] as HistogramBin[],
    firstToken: [] as HistogramBin[],
    spendMicros: 0,
  }));
  // PostgreSQL answers COUNT and SUM of bigint as strings; SQLite as numbers.
  for (const row of counts.rows) {
    const entry = buckets[Number(row.bucket)];
    if (entry) entry.counts = row;
  }
  for (const row of bins.rows) {
    const entry = buckets[Number(row.bucket)];
    entry?.[row.metric === 'added' ? 'added' : 'firstToken'].push({ value: Number(row.bin), count: Number(row.count) });
  }
  for (const row of spend.rows) {
    const entry = buckets[Number(row.bucket)];
    if (entry) entry.spendMicros = Number(row.micros ?? 0);
  }
  return buckets.map((entry, index) => {
    const requests = Number(entry.counts?.requests ?? 0);
    const routed = Number(entry.counts?.routed ?? 0);
    const counted = Number(entry.counts?.counted ?? 0);
    return {
      startMs: range.sinceMs + index * range.bucketMs,
      requests,
      okShare: requests === 0 ? null : Number(entry.counts?.ok ?? 0) / requests,
      fallbackShare: routed === 0 ? null : Number(entry.counts?.fallback ?? 0) / routed,
      attemptsPerRequest: counted === 0 ? null : Number(entry.counts?.attempts ?? 0) / counted,
      addedLatencyP50Ms: percentileOfHistogram(entry.added, 0.5),
      addedLatencyP99Ms: percentileOfHistogram(entry.added, 0.99),
      firstTokenP50Ms: percentileOfHistogram(entry.firstToken, 0.5),
      spendMicros: entry.spendMicros,
    };
  });
}

type Counted = number | string | bigint | null;

interface CountsRow {
  bucket: number | string;
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
