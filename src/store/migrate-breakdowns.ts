import { sql, type RawBuilder, type Transaction } from 'kysely';
import { BREAKDOWN_TABLES, FIVE_MINUTES, type BreakdownTable } from './breakdown-rollups.js';
import { BREAKDOWN_PREFIXES } from './rollup-statements.js';
import type { DatabaseSchema } from './schema.js';

/** Key columns holding numbers; the other keys are text. */
const NUMERIC_KEYS: ReadonlySet<string> = new Set(['minute', 'bin']);

/**
 * The 5-minute twins made after the per-minute tables they sum: a store that had those starts
 * them from what they hold, so a range read by 5 minutes gives the figures read by the minute.
 * `latency_minutes` holds callers' figures only and has no origin column.
 */
const FIVE_MINUTE_TWINS: readonly { twin: BreakdownTable; from: string; origin: RawBuilder<unknown> }[] = [
  { twin: 'latency_five_minutes', from: 'latency_minutes', origin: sql`'caller'` },
  { twin: 'outcome_five_minutes', from: 'outcome_minutes', origin: sql.ref('origin') },
];

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
  for (const { twin, from, origin } of FIVE_MINUTE_TWINS) {
    if (existing.has(twin) || !existing.has(from)) continue;
    const { keys, sums } = BREAKDOWN_TABLES[twin];
    const keyValues = keys.map((key) => (key === 'origin' ? origin : key === 'minute' ? sql`minute - minute % ${sql.lit(FIVE_MINUTES)}` : sql.ref(key)));
    const facets = BREAKDOWN_PREFIXES[twin];
    await sql`INSERT INTO ${sql.table(twin)} (${sql.join([...keys, ...sums].map((column) => sql.ref(column)))})
      SELECT ${sql.join([...keyValues, ...sums.map((sum) => sql`SUM(${sql.ref(sum)})`)])} FROM ${sql.table(from)}
      ${facets ? sql`WHERE facet IN (${sql.join([...facets])})` : sql``}
      GROUP BY ${sql.join(keys.map((_, index) => sql.lit(index + 1)))}`.execute(transaction);
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
