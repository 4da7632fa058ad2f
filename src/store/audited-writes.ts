import type { Database } from 'better-sqlite3';
import { CompiledQuery, sql, type Kysely, type Selectable } from 'kysely';
import { chainHash, GENESIS_HASH } from '../core/audit-chain.js';
import type { AuditEntry } from '../core/audit-entry.js';
import type { AuditTable, DatabaseSchema } from './schema.js';

/** One statement of a change, compiled by the store's own kysely (its dialect's placeholders). */
export interface ChangeStatement {
  sql: string;
  parameters: readonly unknown[];
}

/**
 * A change to the store and the audit row that says so, written in one transaction (SPEC §15): both
 * or neither. An entry alone (a sign-in, a reload) is a change of no statements.
 */
export interface AuditedChange {
  statements: readonly ChangeStatement[];
  /** When set, a first statement that changed no row (a key revoked already) writes no audit row either. */
  onlyIfChanged?: boolean;
  entry: AuditEntry;
}

export interface AuditedResult {
  /** Rows each statement changed, in order (reads: rows returned). */
  changedRows: number[];
  /** The row's `seq`; null when nothing was appended (nothing changed, or the entry was stored already). */
  seq: number | null;
}

/**
 * Serialises appenders on PostgreSQL for the rest of the transaction: each row's `prev_hash` is the
 * one before it, so two may not read the same last row. The number is the trail's own.
 */
const AUDIT_LOCK_ID = 0x5359_4155; // "SYAU"

/** The stored row of an entry appended after `previous` (undefined: the first row there is). */
export function auditTableRow(entry: AuditEntry, previous: { seq: number; hash: string } | undefined): Selectable<AuditTable> {
  const seq = (previous?.seq ?? 0) + 1;
  const prevHash = previous?.hash ?? GENESIS_HASH;
  const { id: _id, ...fields } = entry;
  const hash = chainHash({ seq, prev_hash: prevHash, ...fields });
  return {
    seq,
    id: entry.id,
    at: entry.at,
    at_ms: Date.parse(entry.at),
    actor_json: JSON.stringify(entry.actor),
    actor_id: entry.actor.id,
    action: entry.action,
    target_json: JSON.stringify(entry.target),
    target_id: entry.target.id,
    before_json: entry.before === undefined || entry.before === null ? null : JSON.stringify(entry.before),
    after_json: entry.after === undefined || entry.after === null ? null : JSON.stringify(entry.after),
    request_id: entry.request_id,
    source_ip: entry.source_ip,
    prev_hash: prevHash,
    hash,
  };
}

const AUDIT_COLUMNS = [
  'seq',
  'id',
  'at',
  'at_ms',
  'actor_json',
  'actor_id',
  'action',
  'target_json',
  'target_id',
  'before_json',
  'after_json',
  'request_id',
  'source_ip',
  'prev_hash',
  'hash',
] as const;

/** On an SQLite connection (better-sqlite3): one immediate transaction, so no other writer comes between the last row read and the new one. */
export function sqliteAudited(database: Database, change: AuditedChange): AuditedResult {
  const run = database.transaction((): AuditedResult => {
    const changedRows = change.statements.map((statement) => {
      const prepared = database.prepare(statement.sql);
      return prepared.reader ? prepared.all(...statement.parameters).length : prepared.run(...statement.parameters).changes;
    });
    if (change.onlyIfChanged && (changedRows[0] ?? 0) === 0) return { changedRows, seq: null };
    if (database.prepare('SELECT 1 FROM audit WHERE id = ?').get(change.entry.id)) return { changedRows, seq: null };
    const previous = database.prepare('SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1').get() as { seq: number; hash: string } | undefined;
    const row = auditTableRow(change.entry, previous);
    database.prepare(`INSERT INTO audit (${AUDIT_COLUMNS.join(', ')}) VALUES (${AUDIT_COLUMNS.map((column) => `@${column}`).join(', ')})`).run(row);
    return { changedRows, seq: row.seq };
  });
  return run.immediate();
}

/** Through kysely on PostgreSQL: one transaction, appenders serialised by a transaction-scoped advisory lock. */
export async function kyselyAudited(db: Kysely<DatabaseSchema>, change: AuditedChange): Promise<AuditedResult> {
  return db.transaction().execute(async (transaction) => {
    const changedRows: number[] = [];
    for (const statement of change.statements) {
      const result = await transaction.executeQuery(CompiledQuery.raw(statement.sql, [...statement.parameters]));
      changedRows.push(result.numAffectedRows === undefined ? result.rows.length : Number(result.numAffectedRows));
    }
    if (change.onlyIfChanged && (changedRows[0] ?? 0) === 0) return { changedRows, seq: null };
    await sql`select pg_advisory_xact_lock(${AUDIT_LOCK_ID})`.execute(transaction);
    if (await transaction.selectFrom('audit').select('seq').where('id', '=', change.entry.id).executeTakeFirst()) return { changedRows, seq: null };
    const previous = await transaction.selectFrom('audit').select(['seq', 'hash']).orderBy('seq', 'desc').limit(1).executeTakeFirst();
    const row = auditTableRow(change.entry, previous && { seq: Number(previous.seq), hash: previous.hash });
    await transaction.insertInto('audit').values(row).execute();
    return { changedRows, seq: row.seq };
  });
}
