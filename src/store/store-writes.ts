import type { SpendRow } from '../core/spend-row.js';
import type { RequestRecord } from '../core/request-record.js';
import { sqliteAudited, type AuditedChange, type AuditedResult } from './audited-writes.js';
import type { SqliteInserts } from './sqlite-inserts.js';

/**
 * The writes the gateway makes in the background: batched request records and spend rows (each
 * batch one transaction), and the retention pruner's small deletes.
 */
export interface StoreWrites {
  records(batch: readonly RequestRecord[]): Promise<void>;
  spend(rows: readonly SpendRow[]): Promise<void>;
  /** Deletes up to `limit` of the oldest records created before `olderThanMs`; resolves with how many. */
  pruneRecords(options: { olderThanMs: number; limit: number }): Promise<number>;
  /** A change and its audit row in one transaction (audited-writes.ts). */
  audited(change: AuditedChange): Promise<AuditedResult>;
  /** Called after the writers have flushed; nothing is written afterwards. */
  close(): Promise<void>;
}

/** The writes on the serving thread's own connection (an in-memory store exists only there). */
export function writesInThread(inserts: SqliteInserts): StoreWrites {
  return {
    records: async (batch) => inserts.records(batch),
    spend: async (rows) => inserts.spend(rows),
    pruneRecords: async (options) => inserts.pruneRecords(options),
    audited: async (change) => sqliteAudited(inserts.database, change),
    close: async () => undefined,
  };
}
