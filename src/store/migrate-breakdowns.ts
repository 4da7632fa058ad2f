import { sql, type Transaction } from 'kysely';
import { BREAKDOWN_TABLES, FIVE_MINUTES } from './breakdown-rollups.js';
import type { DatabaseSchema } from './schema.js';

/** Key columns holding numbers; the other keys are text. */
const NUMERIC_KEYS: ReadonlySet<string> = new Set(['minute', 'bin']);

/**
 * The incident view's rollup tables (breakdown-rollups.ts), made from their key and sum columns;
 * a store made before starts them empty. The key begins with the facet and origin, so a view's
 * read is a range of minutes within them, and the pruner deletes by the same prefix.
 */
export async function createBreakdownTables(transaction: Transaction<DatabaseSchema>): Promise<void> {
  const existing = new Set((await transaction.introspection.getTables()).map((table) => table.name));
  for (const [table, { keys, sums }] of Object.entries(BREAKDOWN_TABLES)) {
    let create = transaction.schema.createTable(table).ifNotExists();
    for (const key of keys) create = create.addColumn(key, NUMERIC_KEYS.has(key) ? 'bigint' : 'text', (column) => column.notNull());
    for (const sum of sums) create = create.addColumn(sum, 'bigint', (column) => column.notNull());
    // The builder types key columns by the columns it was told of statically; these come from a table spec.
    await create.addPrimaryKeyConstraint(`${table}_primary_key`, [...keys] as never[]).execute();
  }
  // Made after `latency_minutes` (callers' histograms): it starts with what that holds, so the
  // figures of a day read by 5 minutes are those read by the minute from the upgrade on.
  if (!existing.has('latency_five_minutes')) {
    await sql`INSERT INTO latency_five_minutes (origin, minute, metric, bin, count)
      SELECT 'caller', minute - minute % ${sql.lit(FIVE_MINUTES)}, metric, bin, SUM(count) FROM latency_minutes GROUP BY 2, metric, bin`.execute(transaction);
  }
}

/**
 * The columns the request list filters on by outcome, serving deployment and fallback, added
 * after records were first stored: older records keep nulls (the JSON alone says it, in SQL that
 * differs between SQLite and PostgreSQL), so those filters match only records stored since.
 */
export async function addRecordOutcomeColumns(transaction: Transaction<DatabaseSchema>): Promise<void> {
  const columns = (await transaction.introspection.getTables()).find((table) => table.name === 'requests')?.columns ?? [];
  if (columns.some((column) => column.name === 'outcome')) return;
  for (const name of ['outcome', 'served_connection', 'served_model'] as const) await transaction.schema.alterTable('requests').addColumn(name, 'text').execute();
  await transaction.schema.alterTable('requests').addColumn('fallback', 'integer').execute();
}
