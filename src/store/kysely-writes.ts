import { sql, type Kysely, type Transaction } from 'kysely';
import type { DatabaseSchema } from './schema.js';
import { REQUEST_ORIGINS } from '../core/request-origin.js';
import { BREAKDOWN_TABLES, breakdownRollups, type BreakdownRollups, type BreakdownTable } from './breakdown-rollups.js';
import { MINUTE_MS, recordFacts } from './record-facts.js';
import { BREAKDOWN_PREFIXES } from './rollup-statements.js';
import { cacheRollups, requestRollups, spendRollups } from './stats-rollups.js';
import { kyselyAudited } from './audited-writes.js';
import type { StoreWrites } from './store-writes.js';
import { attemptRows, requestRow, spendTableRow } from './table-rows.js';

/**
 * The batched inserts and the pruner's deletes as kysely queries, for a store whose driver is
 * asynchronous already (PostgreSQL). Each call is one transaction; rows whose key is stored
 * already are skipped (`ON CONFLICT DO NOTHING`), so a batch replayed from the spill file, or
 * written again after its commit was lost in transit, is stored once — and only the rows stored
 * now are added to the dashboard's per-minute rollups, in the same transaction.
 */
export function kyselyWrites(db: Kysely<DatabaseSchema>): Omit<StoreWrites, 'close'> {
  return {
    async records(batch) {
      if (batch.length === 0) return;
      const facts = batch.map(recordFacts);
      const attempts = batch.flatMap(attemptRows);
      await db.transaction().execute(async (transaction) => {
        const inserted = await transaction
          .insertInto('requests')
          .values(facts.map((each) => requestRow(each.record, undefined, each)))
          .onConflict((conflict) => conflict.column('id').doNothing())
          .returning('id')
          .execute();
        if (attempts.length > 0) {
          await transaction.insertInto('attempts').values(attempts).onConflict((conflict) => conflict.columns(['request_id', 'n']).doNothing()).execute();
        }
        const storedIds = new Set(inserted.map((row) => row.id));
        await addRequestRollups(transaction, facts.filter((each) => storedIds.has(each.record.id)));
      });
    },
    async spend(rows) {
      if (rows.length === 0) return;
      await db.transaction().execute(async (transaction) => {
        const inserted = await transaction
          .insertInto('spend')
          .values(rows.map(spendTableRow))
          .onConflict((conflict) => conflict.columns(['request_id', 'attempt_n']).doNothing())
          .returning(['request_id', 'attempt_n'])
          .execute();
        const storedKeys = new Set(inserted.map((row) => `${row.request_id}/${row.attempt_n}`));
        const stored = rows.filter((row) => storedKeys.has(`${row.requestId}/${row.attemptN}`));
        const minutes = spendRollups(stored);
        if (minutes.length === 0) return;
        await transaction
          .insertInto('spend_minutes')
          .values(minutes)
          .onConflict((conflict) => conflict.column('minute').doUpdateSet({ cost_micros: sql`spend_minutes.cost_micros + excluded.cost_micros` }))
          .execute();
        const cacheMinutes = cacheRollups(stored);
        if (cacheMinutes.length === 0) return;
        await transaction
          .insertInto('cache_minutes')
          .values(cacheMinutes)
          .onConflict((conflict) =>
            conflict.columns(['minute', 'connection', 'model']).doUpdateSet({
              input_tokens: sql`cache_minutes.input_tokens + excluded.input_tokens`,
              cache_read_tokens: sql`cache_minutes.cache_read_tokens + excluded.cache_read_tokens`,
              cache_write_tokens: sql`cache_minutes.cache_write_tokens + excluded.cache_write_tokens`,
            }),
          )
          .execute();
      });
    },
    audited: (change) => kyselyAudited(db, change),
    async pruneRecords({ olderThanMs, limit }) {
      return db.transaction().execute(async (transaction) => {
        const oldest = await transaction.selectFrom('requests').select('id').where('created_ms', '<', olderThanMs).orderBy('created_ms').limit(limit).execute();
        const ids = oldest.map((row) => row.id);
        if (ids.length === 0) return 0;
        await transaction.deleteFrom('attempts').where('request_id', 'in', ids).execute();
        const deleted = await transaction.deleteFrom('requests').where('id', 'in', ids).executeTakeFirst();
        const cutoffMinute = Math.floor(olderThanMs / MINUTE_MS);
        await transaction.deleteFrom('request_minutes').where('minute', '<', cutoffMinute).execute();
        await transaction.deleteFrom('latency_minutes').where('minute', '<', cutoffMinute).execute();
        await transaction.deleteFrom('cache_minutes').where('minute', '<', cutoffMinute).execute();
        await pruneBreakdowns(transaction, cutoffMinute);
        return Number(deleted.numDeletedRows);
      });
    },
  };
}

async function addRequestRollups(transaction: Transaction<DatabaseSchema>, stored: Parameters<typeof requestRollups>[0]): Promise<void> {
  const { minutes, latencies } = requestRollups(stored);
  await addBreakdownRollups(transaction, breakdownRollups(stored, latencies));
  if (minutes.length > 0) {
    await transaction
      .insertInto('request_minutes')
      .values(minutes)
      .onConflict((conflict) =>
        conflict.column('minute').doUpdateSet({
          requests: sql`request_minutes.requests + excluded.requests`,
          ok: sql`request_minutes.ok + excluded.ok`,
          fallback: sql`request_minutes.fallback + excluded.fallback`,
          routed: sql`request_minutes.routed + excluded.routed`,
          attempts: sql`request_minutes.attempts + excluded.attempts`,
        }),
      )
      .execute();
  }
  if (latencies.length > 0) {
    await transaction
      .insertInto('latency_minutes')
      .values(latencies)
      .onConflict((conflict) => conflict.columns(['minute', 'metric', 'bin']).doUpdateSet({ count: sql`latency_minutes.count + excluded.count` }))
      .execute();
  }
}

/** Each breakdown table's rows, adding to a row already there (the statements SQLite runs, built for PostgreSQL). */
async function addBreakdownRollups(transaction: Transaction<DatabaseSchema>, rollups: BreakdownRollups): Promise<void> {
  for (const table of Object.keys(BREAKDOWN_TABLES) as BreakdownTable[]) {
    const rows = rollups[table];
    if (rows.length === 0) continue;
    const { keys, sums } = BREAKDOWN_TABLES[table];
    const adding = Object.fromEntries(sums.map((sum) => [sum, sql`${sql.ref(`${table}.${sum}`)} + ${sql.ref(`excluded.${sum}`)}`]));
    // The builder types columns by the table named statically; these come from the table's spec.
    await transaction
      .insertInto(table)
      .values(rows as never[])
      .onConflict((conflict) => conflict.columns([...keys] as never[]).doUpdateSet(adding as never))
      .execute();
  }
}

async function pruneBreakdowns(transaction: Transaction<DatabaseSchema>, cutoffMinute: number): Promise<void> {
  for (const table of Object.keys(BREAKDOWN_TABLES) as BreakdownTable[]) {
    let prune = transaction.deleteFrom(table).where('origin', 'in', [...REQUEST_ORIGINS]).where('minute', '<', cutoffMinute);
    const facets = BREAKDOWN_PREFIXES[table];
    if (facets) prune = prune.where(sql.ref('facet'), 'in', [...facets]);
    await prune.execute();
  }
}
