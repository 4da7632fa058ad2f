import { sql, type Kysely } from 'kysely';
import type { DatabaseSchema } from './schema.js';
import { MINUTE_MS } from './record-facts.js';

/** One deployment's prompt tokens over a range, and how many the provider's cache held. */
export interface DeploymentCacheStats {
  connection: string;
  model: string;
  /** All prompt tokens, cached ones included. */
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/**
 * Each deployment's callers' prompt tokens from `sinceMs` to `untilMs` (whole minutes), read from
 * the per-minute rollup (stats-rollups.ts) in one grouped query, ordered by deployment: the
 * dashboard's cache hit ratio, whose cost is the minutes in the range, not the requests.
 */
export async function cacheStats(db: Kysely<DatabaseSchema>, range: { sinceMs: number; untilMs: number }): Promise<DeploymentCacheStats[]> {
  if (range.sinceMs % MINUTE_MS !== 0 || range.untilMs % MINUTE_MS !== 0) throw new RangeError('stats ranges are whole minutes');
  const rows = await sql<CacheRow>`SELECT connection, model, SUM(input_tokens) AS input_tokens, SUM(cache_read_tokens) AS cache_read_tokens,
      SUM(cache_write_tokens) AS cache_write_tokens
    FROM cache_minutes WHERE minute >= ${range.sinceMs / MINUTE_MS} AND minute < ${range.untilMs / MINUTE_MS}
    GROUP BY connection, model ORDER BY connection, model`.execute(db);
  // PostgreSQL answers SUM of bigint as a numeric string; SQLite as a number.
  return rows.rows.map((row) => ({
    connection: row.connection,
    model: row.model,
    inputTokens: Number(row.input_tokens),
    cacheReadTokens: Number(row.cache_read_tokens),
    cacheWriteTokens: Number(row.cache_write_tokens),
  }));
}

type Summed = number | string | bigint;

interface CacheRow {
  connection: string;
  model: string;
  input_tokens: Summed;
  cache_read_tokens: Summed;
  cache_write_tokens: Summed;
}
