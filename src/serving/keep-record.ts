import type { Config } from '../config/schema.js';
import type { SpendAccounting } from '../ledger/spend-accounting.js';
import type { SpendRow } from '../core/spend-row.js';
import type { RecordStore } from '../records/record-store.js';
import type { RequestRecord } from '../core/request-record.js';
import type { RecordDraft } from '../records/record-draft.js';

export interface KeepRecordDeps {
  spendAccounting: SpendAccounting;
  records: RecordStore;
}

/** Queues a finished draft's ledger rows and its record (both written in the background). */
export function keepRecord(draft: RecordDraft, rows: readonly SpendRow[], config: Config, deps: KeepRecordDeps): RequestRecord {
  const record = draft.toRecord(Date.now(), deps.spendAccounting.account(draft, rows, config));
  deps.records.add(record);
  return record;
}
