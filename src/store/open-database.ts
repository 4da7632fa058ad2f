import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Config } from '../config/schema.js';
import type { DatabaseSchema } from './schema.js';

export type StoreConfig = Config['store'];

/** How long a write waits for another process's lock before failing with SQLITE_BUSY. */
const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens the configured store. Run `migrate` on the result before use; `destroy()` closes it.
 * `path: ':memory:'` gives a private in-memory database (tests).
 */
export function openDatabase(store: StoreConfig): Kysely<DatabaseSchema> {
  if (store.kind === 'postgres') {
    throw new Error(
      'store.kind "postgres" is not available yet: Postgres arrives with the scale-out work. Use store: { kind: sqlite, path: ./switchyard.db } for now.',
    );
  }
  if (store.path !== ':memory:') mkdirSync(dirname(resolve(store.path)), { recursive: true });
  const database = new Database(store.path, { timeout: SQLITE_BUSY_TIMEOUT_MS });
  // WAL lets the admin API read while the record writer writes; NORMAL sync is durable across
  // process crashes in WAL mode and avoids an fsync per transaction.
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  return new Kysely<DatabaseSchema>({ dialect: new SqliteDialect({ database }) });
}
