/**
 * Teams for the gate's tests, written straight into a gateway's store: a `teams` row, and a key's
 * `team_id`. A stand-in while the teams API is built beside the gate (issue 40): once merged, these
 * become `POST /admin/teams` and `team` on `POST /admin/keys`. Write a key's team before the key's
 * first request: a gateway reads a key's team with the key.
 */
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';

/** The store a gateway was configured with: an SQLite file, or a PostgreSQL database. */
export type TeamRowsStore = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

export interface TeamRow {
  name: string;
  budget?: { usd: number; period: 'day' | 'month' | 'total' };
  limits?: { rpm?: number; tpm?: number };
  routes?: string[];
}

/** The store a config's `store:` line names (as `bothStoresForThisFile` writes it). */
export function storeOfLine(storeLine: string): TeamRowsStore {
  const matched = /kind: (sqlite|postgres), (?:path|url): "([^"]+)"/.exec(storeLine);
  if (!matched) throw new Error(`not a store line of an SQLite file or a PostgreSQL database: ${storeLine}`);
  return matched[1] === 'sqlite' ? { kind: 'sqlite', path: matched[2]! } : { kind: 'postgres', url: matched[2]! };
}

/** Inserts a team; returns its id. */
export async function insertTeam(store: TeamRowsStore, team: TeamRow): Promise<string> {
  const id = `team_${randomBytes(8).toString('hex')}`;
  const now = new Date().toISOString();
  const budgetMicros = team.budget === undefined ? null : Math.round(team.budget.usd * 1_000_000);
  const values = [id, team.name, budgetMicros, team.budget?.period ?? null, team.limits?.rpm ?? null, team.limits?.tpm ?? null, team.routes ? JSON.stringify(team.routes) : null, now, now];
  await write(
    store,
    'INSERT INTO teams (id, name, budget_usd_micros, budget_period, rpm, tpm, routes_json, exploration_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)',
    values,
  );
  return id;
}

/** Puts keys (made with `POST /admin/keys`) in a team. */
export async function putKeysInTeam(store: TeamRowsStore, teamId: string, keyIds: readonly string[]): Promise<void> {
  for (const keyId of keyIds) await write(store, 'UPDATE virtual_keys SET team_id = ? WHERE id = ?', [teamId, keyId]);
}

/** One statement with `?` placeholders, on a connection of its own. */
async function write(store: TeamRowsStore, sql: string, values: unknown[]): Promise<void> {
  if (store.kind === 'sqlite') {
    const sqlite = new Database(store.path, { timeout: 5_000 });
    try {
      const changed = sqlite.prepare(sql).run(...values).changes;
      if (changed !== 1) throw new Error(`${sql} changed ${changed} rows`);
    } finally {
      sqlite.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: store.url });
  await client.connect();
  try {
    let index = 0;
    const changed = (await client.query(sql.replace(/\?/g, () => `$${++index}`), values)).rowCount;
    if (changed !== 1) throw new Error(`${sql} changed ${changed} rows`);
  } finally {
    await client.end();
  }
}
