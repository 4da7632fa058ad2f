import {
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';
import type { StoreThread } from './store-thread.js';

/**
 * kysely's SQLite dialect with its queries run on the store thread: the query is built and
 * compiled here, and only its SQL text and parameters cross over. Each query is its own
 * statement; transactions would interleave with the thread's batched inserts, so there are none
 * (migrations run on their own connection before the thread starts).
 */
export function threadDialect(thread: StoreThread): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new ThreadDriver(thread),
    createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}

class ThreadDriver implements Driver {
  readonly #connection: DatabaseConnection;

  constructor(thread: StoreThread) {
    this.#connection = {
      executeQuery: async <R>(compiled: CompiledQuery): Promise<QueryResult<R>> => (await thread.query(compiled.sql, compiled.parameters)) as QueryResult<R>,
      streamQuery: () => {
        throw new Error('the store thread does not stream query results');
      },
    };
  }

  async init(): Promise<void> {}

  // No mutex, unlike kysely's own driver: the thread runs one statement at a time anyway.
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.#connection;
  }

  async beginTransaction(): Promise<void> {
    throw new Error('transactions do not run through the store thread');
  }

  async commitTransaction(): Promise<void> {
    throw new Error('transactions do not run through the store thread');
  }

  async rollbackTransaction(): Promise<void> {
    throw new Error('transactions do not run through the store thread');
  }

  async releaseConnection(): Promise<void> {}

  // The thread belongs to its owner, who closes it after the writers have flushed.
  async destroy(): Promise<void> {}
}
