import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../store/schema.js';
import { storeCall } from '../store/store-call.js';
import type { LedgerWriter } from './ledger-writer.js';

export interface SpendFilter {
  keyId: string;
  /** Rows of requests that started at or after this, epoch milliseconds (a budget period's start). */
  sinceMs: number;
}

/**
 * Micro-dollars a key has spent since a time, from the stored ledger. Rows still buffered in the
 * `LedgerWriter` are not counted: flush it first when the answer must include them.
 */
export async function spentMicros(db: Kysely<DatabaseSchema>, filter: SpendFilter): Promise<number> {
  const row = await db
    .selectFrom('spend')
    .select((eb) => eb.fn.sum<number | string | bigint | null>('cost_micros').as('total'))
    .where('key_id', '=', filter.keyId)
    .where('created_ms', '>=', filter.sinceMs)
    .executeTakeFirst();
  // SQLite answers a number; Postgres answers SUM(bigint) as a numeric string; none when empty.
  return Number(row?.total ?? 0);
}

/**
 * `spentMicros` with the rows still queued in the writer counted too: they are written first.
 * If the store will not take them, the stored sum would be short, so the answer is a 503
 * (`storeCall`) rather than a figure that is too low.
 */
export function spentMicrosWithQueued(ledger: LedgerWriter, db: Kysely<DatabaseSchema>): (keyId: string, sinceMs: number) => Promise<number> {
  return (keyId, sinceMs) => storeCall(ledger.flush().then(() => spentMicros(db, { keyId, sinceMs })));
}
