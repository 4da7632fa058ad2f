import type { Transaction } from 'kysely';
import type { DatabaseSchema } from './schema.js';

/**
 * The tables of SPEC §15 (teams, scoped admin tokens, the audit trail) and the columns keys gained
 * with them. A store made before gains them empty; every key it holds becomes a `service` key of no
 * team, with its one secret (docs/teams-and-access.md).
 */
export async function migrateAccess(transaction: Transaction<DatabaseSchema>): Promise<void> {
  const schema = transaction.schema;
  const tables = await transaction.introspection.getTables();
  const columnsOf = (name: string) => new Set((tables.find((table) => table.name === name)?.columns ?? []).map((column) => column.name));
  const keyColumns = columnsOf('virtual_keys');
  if (!keyColumns.has('team_id')) await schema.alterTable('virtual_keys').addColumn('team_id', 'text').execute();
  if (!keyColumns.has('kind')) await schema.alterTable('virtual_keys').addColumn('kind', 'text', (column) => column.notNull().defaultTo('service')).execute();
  if (!keyColumns.has('owner_id')) await schema.alterTable('virtual_keys').addColumn('owner_id', 'text').execute();
  if (!keyColumns.has('previous_key_hash')) await schema.alterTable('virtual_keys').addColumn('previous_key_hash', 'text').execute();
  if (!keyColumns.has('previous_expires_at')) await schema.alterTable('virtual_keys').addColumn('previous_expires_at', 'text').execute();
  // Authentication finds a rotated key by its replaced secret's hash during the overlap.
  await schema.createIndex('virtual_keys_previous_key_hash').ifNotExists().on('virtual_keys').column('previous_key_hash').execute();
  await schema.createIndex('virtual_keys_team_id').ifNotExists().on('virtual_keys').column('team_id').execute();
  // Records know their key's team: the admin list and a team's roles filter on it, newest first.
  // Records stored before keep null (they were made when no key had a team).
  if (!columnsOf('requests').has('team_id')) await schema.alterTable('requests').addColumn('team_id', 'text').execute();
  await schema.createIndex('requests_team_id_created_ms').ifNotExists().on('requests').columns(['team_id', 'created_ms']).execute();
  await schema
    .createTable('teams')
    .ifNotExists()
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('name', 'text', (column) => column.notNull().unique())
    .addColumn('budget_usd_micros', 'bigint')
    .addColumn('budget_period', 'text')
    .addColumn('rpm', 'integer')
    .addColumn('tpm', 'integer')
    .addColumn('routes_json', 'text')
    .addColumn('exploration_json', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
  await schema
    .createTable('admin_tokens')
    .ifNotExists()
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('token_prefix', 'text', (column) => column.notNull())
    .addColumn('role', 'text', (column) => column.notNull())
    .addColumn('team_id', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await schema
    .createTable('audit')
    .ifNotExists()
    .addColumn('seq', 'bigint', (column) => column.primaryKey())
    .addColumn('id', 'text', (column) => column.notNull().unique())
    .addColumn('at', 'text', (column) => column.notNull())
    .addColumn('at_ms', 'bigint', (column) => column.notNull())
    .addColumn('actor_json', 'text', (column) => column.notNull())
    .addColumn('actor_id', 'text', (column) => column.notNull())
    .addColumn('action', 'text', (column) => column.notNull())
    .addColumn('target_json', 'text', (column) => column.notNull())
    .addColumn('target_id', 'text')
    .addColumn('before_json', 'text')
    .addColumn('after_json', 'text')
    .addColumn('request_id', 'text')
    .addColumn('source_ip', 'text')
    .addColumn('prev_hash', 'text', (column) => column.notNull())
    .addColumn('hash', 'text', (column) => column.notNull())
    .execute();
  await schema.createIndex('audit_at_ms').ifNotExists().on('audit').column('at_ms').execute();
}
