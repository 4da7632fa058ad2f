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
 * new connection (`connectionTimeoutMillis`), each statement on the client (`query_timeout`, for
 * a server that stops answering altogether) and, with `sessionSettings` (the default), on the
 * server (`statement_timeout`). Without them — through PgBouncer, see `acceptsSessionSettings` —
 * nothing here depends on a session: statements are unnamed (kysely never names one, so `pg`
 * prepares none that would outlive a transaction) and the one lock is transaction-scoped.
 */
export function postgresDatabase(
  url: string,
  options: { timeoutMs?: number; connectTimeoutMs?: number; poolSize?: number; sessionSettings?: boolean; onError?: (error: Error) => void } = {},
): Kysely<DatabaseSchema> {
  const timeoutMs = options.timeoutMs ?? STORE_CALL_TIMEOUT_MS;
  const pool = new pg.Pool({
    ...connectionOptions(url, options.connectTimeoutMs ?? timeoutMs, options.sessionSettings === false ? undefined : timeoutMs),
    max: options.poolSize ?? POOL_SIZE,
    query_timeout: timeoutMs,
    // A statement that timed out client-side keeps its connection busy until the server answers;
    // keepalive probes find a server that will never answer (a partition) and end the connection.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
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
 * What a connection sends when it opens. `sessionTimeoutMs` becomes session settings (startup
 * parameters) that bound statements and open transactions on the server.
 */
function connectionOptions(url: string, connectTimeoutMs: number, sessionTimeoutMs: number | undefined): pg.ClientConfig {
  return {
    connectionString: url,
    connectionTimeoutMillis: connectTimeoutMs,
    application_name: 'switchyard',
    ...(sessionTimeoutMs === undefined
      ? {}
      : {
          statement_timeout: sessionTimeoutMs,
          // A transaction left open by a stalled gateway must not hold its locks for long.
          idle_in_transaction_session_timeout: Math.max(sessionTimeoutMs, 5_000),
        }),
  };
}

/**
 * Whether the database takes session settings when a connection opens. PgBouncer refuses a
 * connection that sends settings it does not track (`statement_timeout` among them), and in
 * transaction pooling it could not keep them for one client anyway: its server connections are
 * shared. Behind it the gateway connects without them; its own timeout still bounds each call.
 * Any other failure (the database is not up) is thrown.
 */
async function acceptsSessionSettings(url: string, connectTimeoutMs: number): Promise<boolean> {
  const client = new pg.Client(connectionOptions(url, connectTimeoutMs, STORE_CALL_TIMEOUT_MS));
  // A connection the server ends after the error below is reported on the client: not a crash.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return true;
  } catch (error) {
    if (isRefusedStartupParameter(error)) return false;
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** PgBouncer's answer to a startup parameter it does not track: a protocol violation naming it. */
function isRefusedStartupParameter(error: unknown): boolean {
  return error instanceof Error && (error as { code?: string }).code === '08P01' && /unsupported startup parameter/i.test(error.message);
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
 * transaction (never for a session: through PgBouncer a session outlives the migration and
 * serves other clients), so several gateways (or `switchyard migrate` runs) starting at once
 * take turns. `sessionSettings` is found out when not given (see `acceptsSessionSettings`).
 */
export async function migratePostgres(url: string, sessionSettings?: boolean): Promise<void> {
  const db = postgresDatabase(url, {
    timeoutMs: MIGRATION_TIMEOUT_MS,
    connectTimeoutMs: MIGRATION_CONNECT_TIMEOUT_MS,
    poolSize: 1,
    sessionSettings: sessionSettings ?? (await acceptsSessionSettings(url, MIGRATION_CONNECT_TIMEOUT_MS)),
  });
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
  let sessionSettings: boolean;
  for (let delayMs = FIRST_RETRY_DELAY_MS; ; delayMs = Math.min(delayMs * 2, MAX_RETRY_DELAY_MS)) {
    try {
      sessionSettings = await acceptsSessionSettings(store.url, MIGRATION_CONNECT_TIMEOUT_MS);
      await migratePostgres(store.url, sessionSettings);
      break;
    } catch (error) {
      logger.warn({ err: error, store: where, retryInMs: delayMs }, 'the PostgreSQL store does not answer yet; retrying');
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
  if (!sessionSettings) {
    logger.info({ store: where }, 'the PostgreSQL store refuses session settings (a pooler such as PgBouncer): statements are bounded by the gateway alone');
  }
  const db = postgresDatabase(store.url, { sessionSettings, onError: (error) => logger.warn({ err: error, store: where }, 'a PostgreSQL store connection failed') });
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
