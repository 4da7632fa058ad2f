/**
 * Teams for tests written before the teams API: rows put straight into the store. The API
 * (`POST /admin/teams`, `team` on `POST /admin/keys`) replaces these once it is there.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../../src/store/schema.js';

/** A team with no budget, limits, route bounds or exploration policy of its own; its id. */
export async function insertTeam(db: Kysely<DatabaseSchema>, name: string): Promise<string> {
  const id = `team_${randomBytes(8).toString('hex')}`;
  const now = new Date().toISOString();
  await db
    .insertInto('teams')
    .values({ id, name, budget_usd_micros: null, budget_period: null, rpm: null, tpm: null, routes_json: null, exploration_json: null, created_at: now, updated_at: now })
    .execute();
  return id;
}

/** Puts a key in a team. */
export async function setKeyTeam(db: Kysely<DatabaseSchema>, keyId: string, teamId: string): Promise<void> {
  await db.updateTable('virtual_keys').set({ team_id: teamId }).where('id', '=', keyId).execute();
}
