import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../store/schema.js';

/**
 * Deletes up to `limit` of the oldest audit rows past the retention, and resolves with how many.
 * Only a prefix of the trail goes: rows before the first one still kept, and never the newest row
 * (the next one chains to it and takes the next `seq`), so what is left is one unbroken chain
 * that `switchyard audit verify` checks from its first row. A row replayed from a spill file keeps
 * its time and may sit after newer ones; it goes once the rows before it have.
 */
export async function pruneAudit(db: Kysely<DatabaseSchema>, options: { olderThanMs: number; limit: number }): Promise<number> {
  const firstKept = await db
    .selectFrom('audit')
    .select((eb) => eb.fn.min('seq').as('seq'))
    .where('at_ms', '>=', options.olderThanMs)
    .executeTakeFirst();
  const newest = await db
    .selectFrom('audit')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .executeTakeFirst();
  if (newest?.seq === undefined || newest.seq === null) return 0;
  const keptFrom = Math.min(Number(firstKept?.seq ?? Number.POSITIVE_INFINITY), Number(newest.seq));
  const deleted = await db
    .deleteFrom('audit')
    .where('seq', 'in', (eb) => eb.selectFrom('audit').select('seq').where('seq', '<', keptFrom).orderBy('seq').limit(options.limit))
    .executeTakeFirst();
  return Number(deleted.numDeletedRows);
}
