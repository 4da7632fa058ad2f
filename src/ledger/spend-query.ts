import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../store/schema.js';

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
