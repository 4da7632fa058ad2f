import type { Kysely, Selectable } from 'kysely';
import type { AuditAction, AuditRow } from '../core/audit-entry.js';
import type { AuditTable, DatabaseSchema } from '../store/schema.js';

export const DEFAULT_AUDIT_LIMIT = 50;
export const MAX_AUDIT_LIMIT = 1_000;

/** What `GET /admin/audit` asks for; every field narrows, none widens. */
export interface AuditFilter {
  /** Epoch ms: rows at or after. */
  sinceMs?: number;
  /** Epoch ms: rows before. */
  untilMs?: number;
  /** An actor's id (`admin.token`, `tok_…`, a person's `sub`, `gateway`). */
  actor?: string;
  action?: AuditAction;
  /** A target's id (`key_…`, `team_…`, a run's id). */
  target?: string;
  /** Rows with a smaller `seq`, newest first: the next page back. */
  before?: number;
  /** Rows with a larger `seq`, oldest first: the trail in order, a page at a time (export, verify). */
  after?: number;
  limit?: number;
}

/** Rows of the trail matching `filter`: newest first, or oldest first when `after` is given. */
export async function listAudit(db: Kysely<DatabaseSchema>, filter: AuditFilter): Promise<AuditRow[]> {
  let query = db.selectFrom('audit').selectAll();
  if (filter.sinceMs !== undefined) query = query.where('at_ms', '>=', filter.sinceMs);
  if (filter.untilMs !== undefined) query = query.where('at_ms', '<', filter.untilMs);
  if (filter.actor !== undefined) query = query.where('actor_id', '=', filter.actor);
  if (filter.action !== undefined) query = query.where('action', '=', filter.action);
  if (filter.target !== undefined) query = query.where('target_id', '=', filter.target);
  if (filter.before !== undefined) query = query.where('seq', '<', filter.before);
  if (filter.after !== undefined) query = query.where('seq', '>', filter.after);
  const rows = await query
    .orderBy('seq', filter.after === undefined ? 'desc' : 'asc')
    .limit(filter.limit ?? DEFAULT_AUDIT_LIMIT)
    .execute();
  return rows.map(auditRowOf);
}

/** A stored row as the API shows it: the fields its hash was taken of, and the two hashes. */
export function auditRowOf(row: Selectable<AuditTable>): AuditRow {
  return {
    // PostgreSQL may hand a bigint back as text.
    seq: Number(row.seq),
    at: row.at,
    actor: jsonColumn(row.actor_json) as AuditRow['actor'],
    action: row.action as AuditAction,
    target: jsonColumn(row.target_json) as AuditRow['target'],
    before: jsonColumn(row.before_json),
    after: jsonColumn(row.after_json),
    request_id: row.request_id,
    source_ip: row.source_ip,
    prev_hash: row.prev_hash,
    hash: row.hash,
  };
}

/**
 * A JSON column's value. Text that is not JSON was put there by hand, never by the gateway: it is
 * shown as it is, so the row is still listed — and its hash, taken of what was written, no longer
 * matches, which is what `switchyard audit verify` reports.
 */
function jsonColumn(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
