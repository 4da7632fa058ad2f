import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { RequestOrigin } from '../core/request-origin.js';
import { BREAKDOWN_TABLES, HOUR_MINUTES } from './breakdown-rollups.js';
import type { OutcomeMinutesTable } from './schema.js';
import type { DatabaseSchema } from './schema.js';
import { inWholeFiveMinutes, minuteBuckets, type StatsRange } from './request-stats.js';
import { MINUTE_MS } from './record-facts.js';

/** The summed figures of `outcome_minutes` (requests, attempts, tokens, cost…). */
export type OutcomeSums = Pick<OutcomeMinutesTable, (typeof BREAKDOWN_TABLES)['outcome_minutes']['sums'][number]>;

/** What the breakdown rollups hold for a range and a set of origins, summed; the admin view derives shares and percentiles. */
export interface BreakdownStats {
  /** The range's first minute and its minutes per bucket (epoch minutes), to bucket `attemptMinutes`. */
  sinceMinute: number;
  bucketMinutes: number;
  /** Per bucket and outcome (facet `all`, or the teams' when narrowed to them). */
  bucketOutcomes: ({ bucket: number; outcome: string } & OutcomeSums)[];
  /** Over the range (its whole hours read by the hour), per route, serving connection, key and team, and outcome. */
  facetOutcomes: ({ facet: 'route' | 'connection' | 'key' | 'team'; name: string; detail: string; outcome: string } & OutcomeSums)[];
  /** Per bucket, and key or team. */
  seriesBuckets: { bucket: number; facet: 'key' | 'team'; name: string; cost_micros: number; input_tokens: number; output_tokens: number }[];
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
 *
 * `teams` (ids) narrows the buckets, routes, keys and teams to those teams' requests; the
 * connections' and deployments' figures stay every team's: the rollups do not keep them by team.
 */
export async function breakdownStats(db: Kysely<DatabaseSchema>, range: StatsRange, origins: readonly RequestOrigin[], teams?: readonly string[]): Promise<BreakdownStats> {
  const { bucket, inRange } = minuteBuckets(range);
  const origin = sql`origin IN (${sql.join([...origins])})`;
  // A team's rows by the team's id (`name`); its routes' and keys' by the team id they hold as `detail`.
  const ofTeams = (column: 'name' | 'detail') => (teams === undefined || teams.length === 0 ? sql`1 = 0` : sql`${sql.ref(column)} IN (${sql.join([...teams])})`);
  // Narrowing is a condition after the facets' IN, which stays what the primary key is read by.
  const narrowed = (condition: RawBuilder<unknown>) => (teams === undefined ? sql`` : sql`AND (${condition})`);
  const bucketFacet = teams === undefined ? sql`facet = 'all'` : sql`facet = 'team' AND ${ofTeams('name')}`;
  // Buckets of whole 5 minutes hold whole rows of the 5-minute twins: a fifth of the rows to read.
  const fives = inWholeFiveMinutes(range);
  const bucketTable = sql.table(fives ? 'outcome_five_minutes' : 'outcome_minutes');
  const summed = sql.join(SUMS.map((name) => sql`SUM(${sql.ref(name)}) AS ${sql.ref(name)}`));
  const bucketOutcomes = await rows(sql`SELECT ${bucket} AS bucket, outcome, ${summed} FROM ${bucketTable}
    WHERE ${bucketFacet} AND ${origin} AND ${inRange} GROUP BY 1, outcome`);
  const columns = sql.join(['facet', 'name', 'detail', 'outcome', ...SUMS].map((name) => sql.ref(name)));
  const facetOutcomes = await rows(sql`SELECT facet, name, detail, outcome, ${summed}
    FROM (${hoursAndEdges(range, (table, minutes) => sql`SELECT ${columns} FROM ${sql.table(`outcome_${table}`)}
      WHERE facet IN ('route', 'connection', 'key', 'team')
        ${narrowed(sql`facet = 'connection' OR (facet = 'team' AND ${ofTeams('name')}) OR (facet IN ('route', 'key') AND ${ofTeams('detail')})`)}
        AND ${origin} AND ${minutes}`)}) AS parts
    GROUP BY facet, name, detail, outcome`);
  const seriesBuckets = await rows(sql`SELECT ${bucket} AS bucket, facet, name, SUM(cost_micros) AS cost_micros, SUM(input_tokens) AS input_tokens,
      SUM(output_tokens) AS output_tokens
    FROM ${bucketTable} WHERE facet IN ('key', 'team') ${narrowed(sql`(facet = 'team' AND ${ofTeams('name')}) OR (facet = 'key' AND ${ofTeams('detail')})`)}
      AND ${origin} AND ${inRange}
    GROUP BY 1, facet, name`);
  const facetFirstTokens = await rows(sql`SELECT facet, name, detail, bin, SUM(count) AS count
    FROM (${hoursAndEdges(range, (table, minutes) => sql`SELECT facet, name, detail, bin, count FROM ${sql.table(`first_token_${table}`)}
      WHERE facet IN ('route', 'connection') ${narrowed(sql`facet = 'connection' OR ${ofTeams('detail')}`)} AND ${origin} AND ${minutes}`)}) AS parts
    GROUP BY facet, name, detail, bin`);
  const deploymentTable = fives ? 'first_token_five_minutes' : 'first_token_minutes';
  const deploymentFirstTokens = await rows(sql`SELECT ${bucket} AS bucket, name AS connection, detail AS model, bin, SUM(count) AS count
    FROM ${sql.table(deploymentTable)} WHERE facet = 'deployment' AND ${origin} AND ${inRange} GROUP BY 1, name, detail, bin`);
  const attemptMinutes = await rows(sql`SELECT minute, connection, model, kind, SUM(attempts) AS attempts FROM attempt_minutes
    WHERE ${origin} AND ${inRange} GROUP BY minute, connection, model, kind`);
  return { sinceMinute: range.sinceMs / MINUTE_MS, bucketMinutes: range.bucketMs / MINUTE_MS, bucketOutcomes, facetOutcomes, seriesBuckets, facetFirstTokens, deploymentFirstTokens, attemptMinutes } as BreakdownStats;

  async function rows(query: RawBuilder<Record<string, unknown>>): Promise<Record<string, string | number>[]> {
    return (await query.execute(db)).rows.map(numbersAsNumbers);
  }
}

/**
 * A range-wide read as its whole hours from the hourly table and the minutes of the partial
 * hours at either end from the per-minute one, glued with UNION ALL: `part` makes one table's
 * SELECT, given `hours` or `minutes` and its minutes' condition.
 */
function hoursAndEdges(range: StatsRange, part: (table: 'hours' | 'minutes', minutes: RawBuilder<boolean>) => RawBuilder<unknown>): RawBuilder<unknown> {
  const sinceMinute = range.sinceMs / MINUTE_MS;
  const untilMinute = sinceMinute + (range.bucketMs / MINUTE_MS) * range.bucketCount;
  const firstHour = Math.ceil(sinceMinute / HOUR_MINUTES) * HOUR_MINUTES;
  const endHour = Math.floor(untilMinute / HOUR_MINUTES) * HOUR_MINUTES;
  const between = (from: number, to: number) => sql<boolean>`minute >= ${from} AND minute < ${to}`;
  if (firstHour >= endHour) return part('minutes', between(sinceMinute, untilMinute));
  return sql.join([part('minutes', between(sinceMinute, firstHour)), part('hours', between(firstHour, endHour)), part('minutes', between(endHour, untilMinute))], sql` UNION ALL `);
}

/** PostgreSQL answers SUM of bigint as a numeric string; SQLite as a number. Text columns stay text. */
const TEXT_COLUMNS: ReadonlySet<string> = new Set(['facet', 'name', 'detail', 'outcome', 'connection', 'model', 'kind']);

/**
 * In place: a day's read is tens of thousands of rows, and on SQLite, where every value already
 * has its type, making a copy of each row was the largest cost of the call on the serving thread.
 */
function numbersAsNumbers(row: Record<string, unknown>): Record<string, string | number> {
  for (const column in row) {
    const value = row[column];
    if (TEXT_COLUMNS.has(column)) {
      if (typeof value !== 'string') row[column] = String(value);
    } else if (typeof value !== 'number') row[column] = Number(value);
  }
  return row as Record<string, string | number>;
}
