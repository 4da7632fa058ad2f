import { mkdirSync } from 'node:fs';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Logger } from 'pino';
import pg from 'pg';
import { migrate } from './migrate.js';
import type { DatabaseSchema } from './schema.js';
import { kyselyWrites } from './kysely-writes.js';
import type { StoreWrites } from './store-writes.js';

/**
 * Longest one store call may take — waiting for a pooled connection, connecting, or one
 * statement — before its caller is told the store is unavailable: the same bound as a file
 * store's calls, so a PostgreSQL that does not answer is a fast 503, never a hang.
 */
const STORE_CALL_TIMEOUT_MS = 1_000;

/** Migrations may wait for another gateway's migration (the advisory lock) and build indexes. */
const MIGRATION_TIMEOUT_MS = 60_000;

/** A database that does not let a migration connect within this is retried (serve) or reported (migrate). */
const MIGRATION_CONNECT_TIMEOUT_MS = 5_000;

/** Connections per gateway: the batched writers use one or two, the rest serve reads. */
const POOL_SIZE = 10;

/** Between attempts to reach the database at start, doubling up to the second figure. */
const FIRST_RETRY_DELAY_MS = 250;
const MAX_RETRY_DELAY_MS = 5_000;

/** Any fixed number: every Switchyard migration takes this one advisory lock. */
const MIGRATION_LOCK_ID = 720_943_111;

export interface PostgresStore {
  db: Kysely<DatabaseSchema>;
  writes: StoreWrites;
}

/**
 * A kysely over a `pg.Pool` with every call bounded in time: the wait for a pooled client and a
 * new connection (`connectionTimeoutMillis`), each statement on the server (`statement_timeout`)
 * and on the client (`query_timeout`, for a server that stops answering altogether).
 */
export function postgresDatabase(
  url: string,
  options: { timeoutMs?: number; connectTimeoutMs?: number; poolSize?: number; onError?: (error: Error) => void } = {},
): Kysely<DatabaseSchema> {
  const timeoutMs = options.timeoutMs ?? STORE_CALL_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? POOL_SIZE,
    connectionTimeoutMillis: options.connectTimeoutMs ?? timeoutMs,
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs,
    // A transaction left open by a stalled gateway must not hold its locks for long.
    idle_in_transaction_session_timeout: Math.max(timeoutMs, 5_000),
    // A statement that timed out client-side keeps its connection busy until the server answers;
    // keepalive probes find a server that will never answer (a partition) and end the connection.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: 'switchyard',
    types: { getTypeParser: bigintAsNumber },
  });
  // An idle connection the server dropped (a restart, an outage) is reported here; unhandled, it
  // would end the process. The pool replaces it on the next call.
  pool.on('error', options.onError ?? (() => undefined));
  // A client in use — inside a transaction, between its statements — whose connection the server
  // ends emits 'error' on itself, not on the pool: unhandled, that too would end the process. The
  // statement in flight or the next one fails instead (the write is retried or spilled).
  pool.on('connect', (client) => client.on('error', options.onError ?? (() => undefined)));
  return new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
}

/**
 * bigint columns (epoch milliseconds, micro-dollars, counts) come back as numbers, as SQLite
 * gives them: pg's default is a string, lest a value past 2^53 lose precision, which none of
 * these reach.
 */
function bigintAsNumber(oid: number, format?: string): (value: string) => unknown {
  if (oid === pg.types.builtins.INT8) return Number;
  return pg.types.getTypeParser(oid, format as 'text');
}

/**
 * Creates or upgrades the schema, once, under an advisory lock held for the migration's
 * transaction, so several gateways (or `switchyard migrate` runs) starting at once take turns.
 */
export async function migratePostgres(url: string): Promise<void> {
  const db = postgresDatabase(url, { timeoutMs: MIGRATION_TIMEOUT_MS, connectTimeoutMs: MIGRATION_CONNECT_TIMEOUT_MS, poolSize: 1 });
  try {
    await migrate(db, { exclusive: (transaction) => sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`.execute(transaction).then(() => undefined) });
  } finally {
    await db.destroy();
  }
}

/**
 * Opens the store for serving: migrates it first, retrying until the database answers (a fleet
 * and its database often start together), then a pool for the gateway's calls. The spill
 * directory is made now, so an outage's first refused batch has somewhere to go.
 */
export async function openPostgresStore(store: { url: string; spill_dir: string }, logger: Logger): Promise<PostgresStore> {
  mkdirSync(store.spill_dir, { recursive: true });
  const where = describePostgresUrl(store.url);
  for (let delayMs = FIRST_RETRY_DELAY_MS; ; delayMs = Math.min(delayMs * 2, MAX_RETRY_DELAY_MS)) {
    try {
      await migratePostgres(store.url);
      break;
    } catch (error) {
      logger.warn({ err: error, store: where, retryInMs: delayMs }, 'the PostgreSQL store does not answer yet; retrying');
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
  const db = postgresDatabase(store.url, { onError: (error) => logger.warn({ err: error, store: where }, 'a PostgreSQL store connection failed') });
  // The pool closes with `db.destroy()`, after the writers have flushed.
  return { db, writes: { ...kyselyWrites(db), close: async () => undefined } };
}

/** The URL without its password (in the user part or as a parameter), for logs and messages. */
export function describePostgresUrl(url: string): string {
  const parsed = new URL(url);
  parsed.password = '';
  parsed.searchParams.delete('password');
  return parsed.toString();
}
