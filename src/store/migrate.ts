import type { Kysely, Transaction } from 'kysely';
import type { DatabaseSchema } from './schema.js';
import { migrateAccess } from './migrate-access.js';
import { addRecordOutcomeColumns, createBreakdownTables } from './migrate-breakdowns.js';

export interface MigrateOptions {
  /**
   * Run first inside the migration's transaction, to hold a lock until it commits: several
   * gateways starting at once on one PostgreSQL would otherwise race to create the same tables.
   */
  exclusive?: (transaction: Transaction<DatabaseSchema>) => Promise<void>;
}

/**
 * Creates the tables and indexes when they are missing, and adds columns a store made by an
 * older build lacks; safe to run on every start. Written with kysely's schema builder, so the
 * same steps make the SQLite and the PostgreSQL schema (column types that both read alike:
 * text, integer, bigint). A new table is one more `createTable(...).ifNotExists()` step here,
 * with its interface in `schema.ts`.
 */
export async function migrate(db: Kysely<DatabaseSchema>, options: MigrateOptions = {}): Promise<void> {
  await db.transaction().execute(async (transaction) => {
    await options.exclusive?.(transaction);
    const schema = transaction.schema;
    await schema
      .createTable('requests')
      .ifNotExists()
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('created_at', 'text', (column) => column.notNull())
      // bigint: epoch milliseconds overflow a 32-bit integer (SQLite treats it as INTEGER).
      .addColumn('created_ms', 'bigint', (column) => column.notNull())
      .addColumn('status', 'text', (column) => column.notNull())
      .addColumn('http_status', 'integer', (column) => column.notNull())
      .addColumn('route', 'text')
      .addColumn('model_requested', 'text')
      .addColumn('key_name', 'text')
      .addColumn('stream', 'integer', (column) => column.notNull())
      .addColumn('latency_ms', 'integer', (column) => column.notNull())
      .addColumn('record_json', 'text', (column) => column.notNull())
      .execute();
    // Added after records were first stored: see `addOriginColumns`.
    await addOriginColumns(transaction, 'requests');
    await addRecordOutcomeColumns(transaction);
    await schema.createIndex('requests_route_created_ms').ifNotExists().on('requests').columns(['route', 'created_ms']).execute();
    await schema.createIndex('requests_status_created_ms').ifNotExists().on('requests').columns(['status', 'created_ms']).execute();
    // The retention pruner (and the :memory: bound) finds the oldest records by age alone.
    await schema.createIndex('requests_created_ms').ifNotExists().on('requests').column('created_ms').execute();
    // The admin list filters on who caused a request and on the key that made it, newest first.
    await schema.createIndex('requests_origin_created_ms').ifNotExists().on('requests').columns(['origin', 'created_ms']).execute();
    await schema.createIndex('requests_key_name_created_ms').ifNotExists().on('requests').columns(['key_name', 'created_ms']).execute();
    await schema
      .createTable('attempts')
      .ifNotExists()
      .addColumn('request_id', 'text', (column) => column.notNull())
      .addColumn('n', 'integer', (column) => column.notNull())
      .addColumn('connection', 'text', (column) => column.notNull())
      .addColumn('provider', 'text', (column) => column.notNull())
      .addColumn('model', 'text', (column) => column.notNull())
      .addColumn('kind', 'text', (column) => column.notNull())
      .addColumn('http_status', 'integer')
      .addColumn('latency_ms', 'integer', (column) => column.notNull())
      .addColumn('committed', 'integer', (column) => column.notNull())
      .addPrimaryKeyConstraint('attempts_primary_key', ['request_id', 'n'])
      .execute();
    await schema
      .createTable('virtual_keys')
      .ifNotExists()
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('name', 'text', (column) => column.notNull())
      // Unique: authentication finds a key by its hash alone.
      .addColumn('key_hash', 'text', (column) => column.notNull().unique())
      .addColumn('key_prefix', 'text', (column) => column.notNull())
      .addColumn('routes_json', 'text')
      // bigint: a budget in micro-dollars passes 2^31 at $2,147.
      .addColumn('budget_usd_micros', 'bigint')
      .addColumn('budget_period', 'text')
      .addColumn('rpm', 'integer')
      .addColumn('tpm', 'integer')
      .addColumn('expires_at', 'text')
      .addColumn('created_at', 'text', (column) => column.notNull())
      .addColumn('revoked_at', 'text')
      .execute();
    // Added after keys were first stored: a store made before gains it, every key it holds keeping
    // the direct form it had.
    const keyColumns = (await transaction.introspection.getTables()).find((table) => table.name === 'virtual_keys')?.columns ?? [];
    if (!keyColumns.some((column) => column.name === 'direct')) {
      await schema.alterTable('virtual_keys').addColumn('direct', 'integer', (column) => column.notNull().defaultTo(1)).execute();
    }
    await migrateAccess(transaction);
    await schema
      .createTable('spend')
      .ifNotExists()
      .addColumn('request_id', 'text', (column) => column.notNull())
      .addColumn('attempt_n', 'integer', (column) => column.notNull())
      .addColumn('key_id', 'text')
      .addColumn('key_name', 'text')
      .addColumn('route', 'text')
      .addColumn('connection', 'text', (column) => column.notNull())
      .addColumn('provider', 'text', (column) => column.notNull())
      .addColumn('model', 'text', (column) => column.notNull())
      .addColumn('input_tokens', 'integer', (column) => column.notNull())
      .addColumn('output_tokens', 'integer', (column) => column.notNull())
      .addColumn('cache_read_tokens', 'integer', (column) => column.notNull())
      .addColumn('cache_write_tokens', 'integer', (column) => column.notNull())
      // bigint: an integer column would cap one attempt at $2,147 (a high override price reaches it).
      .addColumn('cost_micros', 'bigint', (column) => column.notNull())
      .addColumn('estimated', 'integer', (column) => column.notNull())
      .addColumn('priced', 'integer', (column) => column.notNull())
      .addColumn('probe', 'integer', (column) => column.notNull())
      .addColumn('created_ms', 'bigint', (column) => column.notNull())
      .addPrimaryKeyConstraint('spend_primary_key', ['request_id', 'attempt_n'])
      .execute();
    await addOriginColumns(transaction, 'spend');
    // Added after spend rows were first stored: older rows wrote no 1-hour cache (as far as they know).
    const spendColumns = (await transaction.introspection.getTables()).find((table) => table.name === 'spend')?.columns ?? [];
    if (!spendColumns.some((column) => column.name === 'cache_write_1h_tokens')) {
      await schema.alterTable('spend').addColumn('cache_write_1h_tokens', 'integer', (column) => column.notNull().defaultTo(0)).execute();
    }
    // Budget checks and the key spend endpoint sum one key's rows since a time.
    await schema.createIndex('spend_key_id_created_ms').ifNotExists().on('spend').columns(['key_id', 'created_ms']).execute();
    // The dashboard's per-minute rollups (stats-rollups.ts): a store made before starts them empty.
    await schema
      .createTable('request_minutes')
      .ifNotExists()
      .addColumn('minute', 'bigint', (column) => column.primaryKey())
      .addColumn('requests', 'bigint', (column) => column.notNull())
      .addColumn('ok', 'bigint', (column) => column.notNull())
      .addColumn('fallback', 'bigint', (column) => column.notNull())
      .addColumn('routed', 'bigint', (column) => column.notNull())
      .addColumn('attempts', 'bigint', (column) => column.notNull())
      .execute();
    await schema
      .createTable('latency_minutes')
      .ifNotExists()
      .addColumn('minute', 'bigint', (column) => column.notNull())
      .addColumn('metric', 'text', (column) => column.notNull())
      .addColumn('bin', 'integer', (column) => column.notNull())
      .addColumn('count', 'bigint', (column) => column.notNull())
      .addPrimaryKeyConstraint('latency_minutes_primary_key', ['minute', 'metric', 'bin'])
      .execute();
    await schema
      .createTable('spend_minutes')
      .ifNotExists()
      .addColumn('minute', 'bigint', (column) => column.primaryKey())
      .addColumn('cost_micros', 'bigint', (column) => column.notNull())
      .execute();
    await schema
      .createTable('cache_minutes')
      .ifNotExists()
      .addColumn('minute', 'bigint', (column) => column.notNull())
      .addColumn('connection', 'text', (column) => column.notNull())
      .addColumn('model', 'text', (column) => column.notNull())
      .addColumn('input_tokens', 'bigint', (column) => column.notNull())
      .addColumn('cache_read_tokens', 'bigint', (column) => column.notNull())
      .addColumn('cache_write_tokens', 'bigint', (column) => column.notNull())
      .addPrimaryKeyConstraint('cache_minutes_primary_key', ['minute', 'connection', 'model'])
      .execute();
    await createBreakdownTables(transaction);
    await schema
      .createTable('stored_responses')
      .ifNotExists()
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('key_id', 'text')
      .addColumn('created_ms', 'bigint', (column) => column.notNull())
      .addColumn('model', 'text', (column) => column.notNull())
      .addColumn('provider', 'text', (column) => column.notNull())
      .addColumn('connection', 'text', (column) => column.notNull())
      .addColumn('input_json', 'text', (column) => column.notNull())
      .addColumn('response_json', 'text', (column) => column.notNull())
      .execute();
    // Retention pruning finds the oldest stored responses by age alone.
    await schema.createIndex('stored_responses_created_ms').ifNotExists().on('stored_responses').column('created_ms').execute();
    await schema
      .createTable('canary_runs')
      .ifNotExists()
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('route', 'text', (column) => column.notNull())
      .addColumn('started_ms', 'bigint', (column) => column.notNull())
      .addColumn('run_json', 'text', (column) => column.notNull())
      .execute();
    await schema.createIndex('canary_runs_route_started_ms').ifNotExists().on('canary_runs').columns(['route', 'started_ms']).execute();
    await schema
      .createTable('canary_baseline_scores')
      .ifNotExists()
      .addColumn('route', 'text', (column) => column.notNull())
      .addColumn('run_id', 'text', (column) => column.notNull())
      .addColumn('started_ms', 'bigint', (column) => column.notNull())
      // A fraction: double precision reads back as the same number on SQLite (REAL) and PostgreSQL.
      .addColumn('score', 'double precision', (column) => column.notNull())
      .addPrimaryKeyConstraint('canary_baseline_scores_primary_key', ['route', 'run_id'])
      .execute();
  });
}

/**
 * `origin` (who caused the request) came after records and spend rows were first stored. A
 * store made before gains it with `caller` for its rows, except those its `probe` flag marked
 * (the spend column; the record's `"probe":true`, a key no string value inside the JSON can
 * spell, since a quote there is escaped).
 */
async function addOriginColumns(transaction: Transaction<DatabaseSchema>, table: 'requests' | 'spend'): Promise<void> {
  const columns = (await transaction.introspection.getTables()).find((candidate) => candidate.name === table)?.columns ?? [];
  if (columns.some((column) => column.name === 'origin')) return;
  await transaction.schema.alterTable(table).addColumn('origin', 'text', (column) => column.notNull().defaultTo('caller')).execute();
  if (table === 'spend') await transaction.updateTable('spend').set({ origin: 'probe' }).where('probe', '=', 1).execute();
  else await transaction.updateTable('requests').set({ origin: 'probe' }).where('record_json', 'like', '%"probe":true%').execute();
}
