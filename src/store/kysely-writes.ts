import type { Kysely } from 'kysely';
import type { DatabaseSchema } from './schema.js';
import type { StoreWrites } from './store-writes.js';
import { attemptRows, requestRow, spendTableRow } from './table-rows.js';

/**
 * The batched inserts and the pruner's deletes as kysely queries, for a store whose driver is
 * asynchronous already (PostgreSQL). Each call is one transaction; rows whose key is stored
 * already are skipped (`ON CONFLICT DO NOTHING`), so a batch replayed from the spill file, or
 * written again after its commit was lost in transit, is stored once.
 */
export function kyselyWrites(db: Kysely<DatabaseSchema>): Omit<StoreWrites, 'close'> {
  return {
    async records(batch) {
      if (batch.length === 0) return;
      const attempts = batch.flatMap(attemptRows);
      await db.transaction().execute(async (transaction) => {
        await transaction.insertInto('requests').values(batch.map(requestRow)).onConflict((conflict) => conflict.column('id').doNothing()).execute();
        if (attempts.length === 0) return;
        await transaction.insertInto('attempts').values(attempts).onConflict((conflict) => conflict.columns(['request_id', 'n']).doNothing()).execute();
      });
    },
    async spend(rows) {
      if (rows.length === 0) return;
      await db.insertInto('spend').values(rows.map(spendTableRow)).onConflict((conflict) => conflict.columns(['request_id', 'attempt_n']).doNothing()).execute();
    },
    async pruneRecords({ olderThanMs, limit }) {
      return db.transaction().execute(async (transaction) => {
        const oldest = await transaction.selectFrom('requests').select('id').where('created_ms', '<', olderThanMs).orderBy('created_ms').limit(limit).execute();
        const ids = oldest.map((row) => row.id);
        if (ids.length === 0) return 0;
        await transaction.deleteFrom('attempts').where('request_id', 'in', ids).execute();
        const deleted = await transaction.deleteFrom('requests').where('id', 'in', ids).executeTakeFirst();
        return Number(deleted.numDeletedRows);
      });
    },
  };
}
