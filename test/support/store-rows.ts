/**
 * Reading and writing a running gateway's store beside it, through a connection of the test's
 * own: rows to look at (the audit trail).
 */
import type { Kysely } from 'kysely';
import { pino } from 'pino';
import type { Config } from '../../src/config/schema.js';
import type { DatabaseSchema } from '../../src/store/schema.js';
import { openConfiguredStore } from '../../src/store/open-configured-store.js';

/** Runs `use` on a connection to the store `store` names (a file or PostgreSQL: an in-memory one has nothing to share), then closes it. */
export async function withStore<T>(store: Config['store'], use: (db: Kysely<DatabaseSchema>) => Promise<T>): Promise<T> {
  const { db, writes } = await openConfiguredStore(store, pino({ level: 'silent' }));
  try {
    return await use(db);
  } finally {
    await writes.close();
    await db.destroy();
  }
}
