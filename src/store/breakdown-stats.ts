import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { RequestOrigin } from '../core/request-origin.js';
import { BREAKDOWN_TABLES } from './breakdown-rollups.js';
import type { OutcomeMinutesTable } from './schema.js';
import type { DatabaseSchema } from './schema.js';
import { minuteBuckets, type StatsRange } from './request-stats.js';
import { MINUTE_MS } from './stats-rollups.js';

/** The summed figures of `outcome_minutes` (requests, attempts, tokens, cost…). */
export type OutcomeSums = Pick<OutcomeMinutesTable, (typeof BREAKDOWN_TABLES)['outcome_minutes']['sums'][number]>;

/** What the breakdown rollups hold for a range and a set of origins, summed; the admin view derives shares and percentiles. */
export interface BreakdownStats {
  /** The range's first minute and its minutes per bucket (epoch minutes), to bucket `attemptMinutes`. */
  sinceMinute: number;
  bucketMinutes: number;
  /** Per bucket and outcome (facet `all`). */
  bucketOutcomes: ({ bucket: number; outcome: string } & OutcomeSums)[];
  /** Over the range, per route, serving connection and key, and outcome. */
  facetOutcomes: ({ facet: 'route' | 'connection' | 'key'; name: string; detail: string; outcome: string } & OutcomeSums)[];
  /** Per bucket and key. */
  keyBuckets: { bucket: number; name: string; cost_micros: number; input_tokens: number; output_tokens: number }[];
  /** Over the range, the first-token histogram per route and serving connection. */
  facetFirstTokens: { facet: 'route' | 'connection'; name: string; detail: string; bin: number; count: number }[];
  /** Per bucket, the attempts' first-token histogram per deployment. */
  deploymentFirstTokens: { bucket: number; connection: string; model: string; bin: number; count: number }[];
  /** Per minute (for runs of failing minutes), deployment and failure kind. */
  attemptMinutes: { minute: number; connection: string; model: string; kind: string; attempts: number }[];
}

const SUMS = BREAKDOWN_TABLES.outcome_minutes.sums;

/**
 * The incident view's figures from the per-minute breakdown rollups (breakdown-rollups.ts): six
 * grouped reads of the range's minutes, each a range of the tables' keys (facet, origin, minute),
 * the same SQL on SQLite and PostgreSQL; the cost is the range's minutes and their rows, not
 * its requests. Run one after another: on SQLite every read queues on the store thread.
 */
export async function breakdownStats(db: Kysely<DatabaseSchema>, range: StatsRange, origins: readonly RequestOrigin[]): Promise<BreakdownStats> {
  const { bucket, inRange } = minuteBuckets(range);
  const origin = sql`origin IN (${sql.join([...origins])})`;
  const summed = sql.join(SUMS.map((name) => sql`SUM(${sql.ref(name)}) AS ${sql.ref(name)}`));
  const bucketOutcomes = await rows(sql`SELECT ${bucket} AS bucket, outcome, ${summed} FROM outcome_minutes
    WHERE facet = 'all' AND ${origin} AND ${inRange} GROUP BY 1, outcome`);
  const facetOutcomes = await rows(sql`SELECT facet, name, detail, outcome, ${summed} FROM outcome_minutes
    WHERE facet IN ('route', 'connection', 'key') AND ${origin} AND ${inRange} GROUP BY facet, name, detail, outcome`);
  const keyBuckets = await rows(sql`SELECT ${bucket} AS bucket, name, SUM(cost_micros) AS cost_micros, SUM(input_tokens) AS input_tokens,
      SUM(output_tokens) AS output_tokens
    FROM outcome_minutes WHERE facet = 'key' AND ${origin} AND ${inRange} GROUP BY 1, name`);
  const facetFirstTokens = await rows(sql`SELECT facet, name, detail, bin, SUM(count) AS count FROM first_token_minutes
    WHERE facet IN ('route', 'connection') AND ${origin} AND ${inRange} GROUP BY facet, name, detail, bin`);
  const deploymentFirstTokens = await rows(sql`SELECT ${bucket} AS bucket, name AS connection, detail AS model, bin, SUM(count) AS count
    FROM first_token_minutes WHERE facet = 'deployment' AND ${origin} AND ${inRange} GROUP BY 1, name, detail, bin`);
  const attemptMinutes = await rows(sql`SELECT minute, connection, model, kind, SUM(attempts) AS attempts FROM attempt_minutes
    WHERE ${origin} AND ${inRange} GROUP BY minute, connection, model, kind`);
  return { sinceMinute: range.sinceMs / MINUTE_MS, bucketMinutes: range.bucketMs / MINUTE_MS, bucketOutcomes, facetOutcomes, keyBuckets, facetFirstTokens, deploymentFirstTokens, attemptMinutes } as BreakdownStats;

  async function rows(query: RawBuilder<Record<string, unknown>>): Promise<Record<string, string | number>[]> {
    return (await query.execute(db)).rows.map(numbersAsNumbers);
  }
}

/** PostgreSQL answers SUM of bigint as a numeric string; SQLite as a number. Text columns stay text. */
const TEXT_COLUMNS: ReadonlySet<string> = new Set(['facet', 'name', 'detail', 'outcome', 'connection', 'model', 'kind']);

function numbersAsNumbers(row: Record<string, unknown>): Record<string, string | number> {
  return Object.fromEntries(Object.entries(row).map(([column, value]) => [column, TEXT_COLUMNS.has(column) ? String(value) : Number(value)]));
}
