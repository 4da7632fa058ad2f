import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { DatabaseSchema } from './schema.js';

/** Where the store is: the part of the `store` config that opening it needs. */
export type StoreConfig = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/**
 * How long a statement waits for another process's lock before failing with SQLITE_BUSY, at
 * start (migrations, before anything is served). The store thread waits far less (100 ms, see
 * store-worker.ts): while serving, a locked store is an outage to ride out, not to wait on.
 */
const STARTUP_BUSY_TIMEOUT_MS = 5_000;

/** The configured store: kysely for queries, and its SQLite connection for the batched inserts. */
export interface OpenedStore {
  db: Kysely<DatabaseSchema>;
  sqlite: Database.Database;
}

/**
 * Opens the configured store. Run `migrate` on the result before use; `destroy()` closes it.
 * `path: ':memory:'` gives a private in-memory database (tests).
 */
export function openDatabase(store: StoreConfig): Kysely<DatabaseSchema> {
  return openStore(store).db;
}

export function openStore(store: StoreConfig): OpenedStore {
  // A programming error, not a config one: PostgreSQL has a pool and no thread (postgres-store.ts).
  if (store.kind === 'postgres') throw new Error('openStore opens SQLite stores; a PostgreSQL store opens with openPostgresStore');
  const sqlite = openSqlite(store.path);
  return { db: new Kysely<DatabaseSchema>({ dialect: new SqliteDialect({ database: sqlite }) }), sqlite };
}

/** One connection to an SQLite file (created with its directory when missing) or `:memory:`. */
export function openSqlite(path: string, options: { busyTimeoutMs?: number } = {}): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  const sqlite = new Database(path, { timeout: options.busyTimeoutMs ?? STARTUP_BUSY_TIMEOUT_MS });
  // WAL lets the admin API read while the record writer writes; NORMAL sync is durable across
  // process crashes in WAL mode and avoids an fsync per transaction.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  return sqlite;
}
