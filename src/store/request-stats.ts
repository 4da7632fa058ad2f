import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DatabaseSchema } from './schema.js';
import { percentileOfHistogram, type HistogramBin } from './percentile-of-histogram.js';
import { MINUTE_MS } from './record-facts.js';
import { FIVE_MINUTES } from './breakdown-rollups.js';

export interface StatsRange {
  /** Start of the first bucket, epoch milliseconds: a whole minute. */
  sinceMs: number;
  /** A whole number of minutes. */
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

/** A rollup row's bucket in the range (`bucket`), and whether its minute is in the range (`inRange`), as SQL. */
export function minuteBuckets(range: StatsRange): { bucket: RawBuilder<number>; inRange: RawBuilder<boolean> } {
  if (range.sinceMs % MINUTE_MS !== 0 || range.bucketMs % MINUTE_MS !== 0) throw new RangeError('stats ranges are whole minutes');
  const sinceMinute = range.sinceMs / MINUTE_MS;
  const bucketMinutes = range.bucketMs / MINUTE_MS;
  const untilMinute = sinceMinute + bucketMinutes * range.bucketCount;
  return {
    // CAST: SQLite may bind a whole JS number as a real, making the division fractional.
    bucket: sql<number>`CAST((minute - ${sinceMinute}) / ${bucketMinutes} AS INTEGER)`,
    inRange: sql<boolean>`minute >= ${sinceMinute} AND minute < ${untilMinute}`,
  };
}

/**
 * Whether the range's buckets are whole 5 minutes starting on one (as the handler aligns buckets
 * of 5 minutes or more): the 5-minute rollups then hold exactly the buckets' figures.
 */
export function inWholeFiveMinutes(range: StatsRange): boolean {
  const fiveMs = FIVE_MINUTES * MINUTE_MS;
  return range.bucketMs % fiveMs === 0 && range.sinceMs % fiveMs === 0;
}

/**
 * The dashboard's time-bucketed figures, from the per-minute rollups written with the records
 * (stats-rollups.ts): three grouped reads of the range's minutes, the same SQL on SQLite and
 * PostgreSQL, whose cost is the number of minutes (and histogram bins) in the range, not the
 * number of requests. Every bucket of the range is in the answer, empty ones included, oldest
 * first.
 */
export async function requestStats(db: Kysely<DatabaseSchema>, range: StatsRange): Promise<StatsBucket[]> {
  const { bucket, inRange } = minuteBuckets(range);
  // One after another: on SQLite every call queues on the store thread, and each call's time bound
  // would otherwise include the wait for the others.
  const counts = await sql<CountsRow>`SELECT ${bucket} AS bucket, SUM(requests) AS requests, SUM(ok) AS ok, SUM(fallback) AS fallback,
      SUM(routed) AS routed, SUM(attempts) AS attempts
    FROM request_minutes WHERE ${inRange} GROUP BY 1`.execute(db);
  const histograms = inWholeFiveMinutes(range) ? sql`latency_five_minutes WHERE origin = 'caller' AND` : sql`latency_minutes WHERE`;
  const bins = await sql<BinRow>`SELECT ${bucket} AS bucket, metric, bin, SUM(count) AS count
    FROM ${histograms} ${inRange} GROUP BY 1, 2, 3`.execute(db);
  const spend = await sql<SpendRow>`SELECT ${bucket} AS bucket, SUM(cost_micros) AS micros FROM spend_minutes WHERE ${inRange} GROUP BY 1`.execute(db);

  const buckets = Array.from({ length: range.bucketCount }, () => ({
    counts: undefined as CountsRow | undefined,
    added: [] as HistogramBin[],
    firstToken: [] as HistogramBin[],
    spendMicros: 0,
  }));
  // PostgreSQL answers SUM of bigint as a numeric string; SQLite as a number.
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
    if (entry) entry.spendMicros = Number(row.micros);
  }
  return buckets.map((entry, index) => {
    const requests = Number(entry.counts?.requests ?? 0);
    const routed = Number(entry.counts?.routed ?? 0);
    return {
      startMs: range.sinceMs + index * range.bucketMs,
      requests,
      okShare: requests === 0 ? null : Number(entry.counts!.ok) / requests,
      fallbackShare: routed === 0 ? null : Number(entry.counts!.fallback) / routed,
      attemptsPerRequest: requests === 0 ? null : Number(entry.counts!.attempts) / requests,
      addedLatencyP50Ms: percentileOfHistogram(entry.added, 0.5),
      addedLatencyP99Ms: percentileOfHistogram(entry.added, 0.99),
      firstTokenP50Ms: percentileOfHistogram(entry.firstToken, 0.5),
      spendMicros: entry.spendMicros,
    };
  });
}

type Summed = number | string | bigint;

interface CountsRow {
  bucket: number | string;
  requests: Summed;
  ok: Summed;
  fallback: Summed;
  routed: Summed;
  attempts: Summed;
}

interface BinRow {
  bucket: number | string;
  metric: string;
  bin: Summed;
  count: Summed;
}

interface SpendRow {
  bucket: number | string;
  micros: Summed;
}
