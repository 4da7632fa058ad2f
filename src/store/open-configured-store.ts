import { basename, dirname } from 'node:path';
import { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import type { SpillLocation } from '../sinks/spill-directory.js';
import { migrate } from './migrate.js';
import { openStore } from './open-database.js';
import type { DatabaseSchema } from './schema.js';
import { SqliteInserts } from './sqlite-inserts.js';
import { StoreThread } from './store-thread.js';
import { writesInThread, type StoreWrites } from './store-writes.js';
import { threadDialect } from './thread-dialect.js';

/** Where the gateway keeps keys, records and spend: queries through `db`, background writes through `writes`. */
export interface AppStore {
  db: Kysely<DatabaseSchema>;
  writes: StoreWrites;
}

/** The SQLite file of a file store; undefined for an in-memory one (tests), which keeps refused writes in memory only. */
function sqliteFileOf(store: Config['store']): string | undefined {
  return store.kind === 'sqlite' && store.path !== ':memory:' ? store.path : undefined;
}

/**
 * Where refused writes wait: beside an SQLite file (named after it), in `spill_dir` for
 * PostgreSQL (`switchyard.spill-…`); in memory only for an in-memory store (tests).
 */
export function spillLocationOf(store: Config['store']): SpillLocation | undefined {
  if (store.kind === 'postgres') return { directory: store.spill_dir, prefix: 'switchyard' };
  const file = sqliteFileOf(store);
  return file === undefined ? undefined : { directory: dirname(file), prefix: basename(file) };
}

/**
 * The configured store. Every call to a file — queries, batched inserts, pruning — runs on a
 * thread of its own, so a locked or slow store never stalls the serving thread; this thread's
 * connection only migrates it at start. An in-memory database exists only on the connection
 * that opened it, so it stays here, bounded by `store.max_records`. PostgreSQL is asynchronous
 * already: a bounded pool, no thread (postgres-store.ts).
 */
export async function openConfiguredStore(store: Config['store'], logger: Logger): Promise<AppStore> {
  // The PostgreSQL driver is loaded only for a PostgreSQL store.
  if (store.kind === 'postgres') return (await import('./postgres-store.js')).openPostgresStore(store, logger);
  const opened = openStore(store);
  await migrate(opened.db);
  const file = sqliteFileOf(store);
  if (file === undefined) {
    const maxRecords = store.kind === 'sqlite' ? store.max_records : undefined;
    return { db: opened.db, writes: writesInThread(new SqliteInserts(opened.sqlite, { maxRecords })) };
  }
  await opened.db.destroy();
  const thread = new StoreThread(file);
  await thread.ready();
  return { db: new Kysely<DatabaseSchema>({ dialect: threadDialect(thread) }), writes: thread };
}
