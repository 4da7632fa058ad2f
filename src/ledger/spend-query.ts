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
 * Micro-dollars spent by a team's keys since a time. A key never changes team, so the join on the
 * key's team is the team's spend whatever the key's later fate (revoked keys' spend counts).
 */
export async function teamSpentMicros(db: Kysely<DatabaseSchema>, filter: { teamId: string; sinceMs: number }): Promise<number> {
  const row = await db
    .selectFrom('spend')
    .innerJoin('virtual_keys', 'virtual_keys.id', 'spend.key_id')
    .select((eb) => eb.fn.sum<number | string | bigint | null>('spend.cost_micros').as('total'))
    .where('virtual_keys.team_id', '=', filter.teamId)
    .where('spend.created_ms', '>=', filter.sinceMs)
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

/** Team ids (`team_…`) and key ids (`key_…`) never collide: the gate counts both by id. */
export function isTeamId(subjectId: string): boolean {
  return subjectId.startsWith('team_');
}

/**
 * `spentMicros` (or `teamSpentMicros` for a team's id) with the rows still queued in the writer counted too: they are written first.
 * If the store will not take them, the stored sum would be short, so the answer is a 503
 * (`storeCall`) rather than a figure that is too low.
 */
export function spentMicrosWithQueued(ledger: LedgerWriter, db: Kysely<DatabaseSchema>): (subjectId: string, sinceMs: number) => Promise<number> {
  return (subjectId, sinceMs) =>
    storeCall(
      ledger
        .flush()
        .then(() => (isTeamId(subjectId) ? teamSpentMicros(db, { teamId: subjectId, sinceMs }) : spentMicros(db, { keyId: subjectId, sinceMs }))),
    );
}
