/** The store a gateway was configured with, opened by the test beside it: to read or set rows the API does not reach. */
import type { Kysely } from 'kysely';
import { openDatabase } from '../../src/store/open-database.js';
import { postgresDatabase } from '../../src/store/postgres-store.js';
import type { DatabaseSchema } from '../../src/store/schema.js';

/** A connection to the store of a config's `store:` line (an SQLite file or a PostgreSQL URL, as both-stores.ts writes them). */
export function storeDatabase(storeLine: string): Kysely<DatabaseSchema> {
  const url = /url: "([^"]+)"/.exec(storeLine)?.[1];
  if (url) return postgresDatabase(url);
  const path = /path: "([^"]+)"/.exec(storeLine)?.[1];
  if (!path || path === ':memory:') throw new Error(`storeDatabase: no store file or URL another connection can open in ${storeLine}`);
  return openDatabase({ kind: 'sqlite', path });
}
