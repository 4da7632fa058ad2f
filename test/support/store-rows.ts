/**
 * Reading and writing a running gateway's store beside it, through a connection of the test's
 * own: rows to look at (the audit trail) and, until the teams API is in this branch, teams to
 * sign in to.
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

/** A team with nothing but its id and name, as `POST /admin/teams` would store it. */
export async function insertTeam(store: Config['store'], team: { id: string; name: string }): Promise<void> {
  const now = new Date().toISOString();
  await withStore(store, (db) =>
    db
      .insertInto('teams')
      .values({ ...team, budget_usd_micros: null, budget_period: null, rpm: null, tpm: null, routes_json: null, exploration_json: null, created_at: now, updated_at: now })
      .execute(),
  );
}
