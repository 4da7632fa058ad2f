import { REQUEST_ORIGINS } from '../core/request-origin.js';
import { BREAKDOWN_TABLES, type BreakdownTable, type FirstTokenFacet, type OutcomeFacet } from './breakdown-rollups.js';

/**
 * The rollup upserts and prunes as SQL text that SQLite and PostgreSQL both take, with named
 * parameters for SQLite's prepared statements (kysely-writes.ts builds the same upserts for
 * PostgreSQL with its query builder).
 */
export const ROLLUP_UPSERTS = {
  requestMinute: `INSERT INTO request_minutes (minute, requests, ok, fallback, routed, attempts)
    VALUES (@minute, @requests, @ok, @fallback, @routed, @attempts)
    ON CONFLICT (minute) DO UPDATE SET requests = request_minutes.requests + excluded.requests, ok = request_minutes.ok + excluded.ok,
      fallback = request_minutes.fallback + excluded.fallback, routed = request_minutes.routed + excluded.routed,
      attempts = request_minutes.attempts + excluded.attempts`,
  latencyMinute: `INSERT INTO latency_minutes (minute, metric, bin, count) VALUES (@minute, @metric, @bin, @count)
    ON CONFLICT (minute, metric, bin) DO UPDATE SET count = latency_minutes.count + excluded.count`,
  spendMinute: `INSERT INTO spend_minutes (minute, cost_micros) VALUES (@minute, @cost_micros)
    ON CONFLICT (minute) DO UPDATE SET cost_micros = spend_minutes.cost_micros + excluded.cost_micros`,
  cacheMinute: `INSERT INTO cache_minutes (minute, connection, model, input_tokens, cache_read_tokens, cache_write_tokens)
    VALUES (@minute, @connection, @model, @input_tokens, @cache_read_tokens, @cache_write_tokens)
    ON CONFLICT (minute, connection, model) DO UPDATE SET input_tokens = cache_minutes.input_tokens + excluded.input_tokens,
      cache_read_tokens = cache_minutes.cache_read_tokens + excluded.cache_read_tokens,
      cache_write_tokens = cache_minutes.cache_write_tokens + excluded.cache_write_tokens`,
} as const;

/** Rollups of minutes before a cutoff (epoch minutes), pruned with the records; spend's are kept like the ledger. */
export const ROLLUP_PRUNES = {
  requestMinutes: 'DELETE FROM request_minutes WHERE minute < ?',
  latencyMinutes: 'DELETE FROM latency_minutes WHERE minute < ?',
  cacheMinutes: 'DELETE FROM cache_minutes WHERE minute < ?',
} as const;

/** An upsert of one breakdown table's rows (named parameters) that adds the sums of a row already there. */
export function breakdownUpsert(table: BreakdownTable): string {
  const { keys, sums } = BREAKDOWN_TABLES[table];
  const columns = [...keys, ...sums];
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})
    ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${sums.map((sum) => `${sum} = ${table}.${sum} + excluded.${sum}`).join(', ')}`;
}

/**
 * The facets each breakdown table is keyed by first (none for `attempt_minutes`): a prune names
 * them and every origin, so it is a range of the primary key, not a scan of the table.
 */
export const BREAKDOWN_PREFIXES: Readonly<Record<BreakdownTable, readonly string[] | undefined>> = {
  outcome_minutes: ['all', 'route', 'connection', 'key', 'team'] satisfies OutcomeFacet[],
  attempt_minutes: undefined,
  first_token_minutes: ['route', 'connection', 'deployment'] satisfies FirstTokenFacet[],
  outcome_hours: ['route', 'connection', 'key', 'team'] satisfies OutcomeFacet[],
  outcome_five_minutes: ['all', 'key', 'team'] satisfies OutcomeFacet[],
  first_token_hours: ['route', 'connection'] satisfies FirstTokenFacet[],
  first_token_five_minutes: ['deployment'] satisfies FirstTokenFacet[],
  latency_five_minutes: undefined,
};

/** Deletes a breakdown table's minutes before a cutoff (the one positional parameter, epoch minutes). */
export function breakdownPrune(table: BreakdownTable): string {
  const list = (values: readonly string[]) => values.map((value) => `'${value}'`).join(', ');
  const facets = BREAKDOWN_PREFIXES[table];
  return `DELETE FROM ${table} WHERE ${facets ? `facet IN (${list(facets)}) AND ` : ''}origin IN (${list(REQUEST_ORIGINS)}) AND minute < ?`;
}
