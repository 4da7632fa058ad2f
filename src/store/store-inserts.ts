import type { SpendRow } from '../ledger/spend-row.js';
import type { RequestRecord } from '../records/request-record.js';
import type { SqliteInserts } from './sqlite-inserts.js';

/** The batched writes the gateway makes: request records and spend rows, each batch one transaction. */
export interface StoreInserts {
  records(batch: readonly RequestRecord[]): Promise<void>;
  spend(rows: readonly SpendRow[]): Promise<void>;
  /** Called after the writers have flushed; nothing is inserted afterwards. */
  close(): Promise<void>;
}

/** The inserts on the serving thread's own connection (an in-memory store exists only there). */
export function insertsInThread(inserts: SqliteInserts): StoreInserts {
  return {
    records: async (batch) => inserts.records(batch),
    spend: async (rows) => inserts.spend(rows),
    close: async () => undefined,
  };
}
