/**
 * What the audit trail's tests share: reading `GET /admin/audit`, and reaching the store a
 * `store:` line names straight (not through the gateway) — to edit the trail by hand, make it
 * refuse inserts, or seed it. Not a test file itself.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { pino } from 'pino';
import { parseConfig } from '../../src/config/parse-config.js';
import type { AuditAction, AuditRow } from '../../src/core/audit-entry.js';
import { openConfiguredStore, type AppStore } from '../../src/store/open-configured-store.js';
import { keysAuth } from '../support/virtual-keys.js';

/** The rows `GET /admin/audit?<query>` answers; anything but 200 fails the test. */
export async function auditRows(url: string, token: string, query = ''): Promise<AuditRow[]> {
  const response = await fetch(`${url}/admin/audit${query === '' ? '' : `?${query}`}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
  if (response.status !== 200) throw new Error(`GET /admin/audit?${query} → ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { data: AuditRow[] }).data;
}

/** The rows of one action, newest first. */
export function rowsOf(rows: readonly AuditRow[], action: AuditAction): AuditRow[] {
  return rows.filter((row) => row.action === action);
}

/** One SQL statement on a connection of its own to the store of `storeLine` (`$1`-style parameters on PostgreSQL, `?` on SQLite). */
export async function rawSql<T = Record<string, unknown>>(storeLine: string, text: string, values: unknown[] = []): Promise<T[]> {
  const store = storeOf(storeLine);
  if (store.kind === 'postgres') {
    const client = new pg.Client({ connectionString: store.url });
    await client.connect();
    try {
      return (await client.query(text, values)).rows as T[];
    } finally {
      await client.end();
    }
  }
  const database = new Database(store.path);
  try {
    const statement = database.prepare(text);
    if (statement.reader) return statement.all(...values) as T[];
    statement.run(...values);
    return [];
  } finally {
    database.close();
  }
}

/**
 * The statements that make table `audit` refuse every insert (and those that undo it), as a
 * database whose audit insert fails would: a change made with its row must then not be made.
 */
export function refuseAuditInserts(storeLine: string): { refuse: string[]; allow: string[] } {
  if (storeOf(storeLine).kind === 'postgres') {
    return {
      refuse: [
        `CREATE FUNCTION refuse_audit() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'audit inserts refused (on purpose)'; END $$ LANGUAGE plpgsql`,
        'CREATE TRIGGER refuse_audit BEFORE INSERT ON audit FOR EACH ROW EXECUTE FUNCTION refuse_audit()',
      ],
      allow: ['DROP TRIGGER refuse_audit ON audit', 'DROP FUNCTION refuse_audit()'],
    };
  }
  return {
    refuse: [`CREATE TRIGGER refuse_audit BEFORE INSERT ON audit BEGIN SELECT RAISE(ABORT, 'audit inserts refused (on purpose)'); END`],
    allow: ['DROP TRIGGER refuse_audit'],
  };
}

/** The store of `storeLine`, opened (and migrated) as the gateway opens it: for seeding before a gateway starts. */
export function openStoreOf(storeLine: string): Promise<AppStore> {
  return openConfiguredStore(storeOf(storeLine), pino({ level: 'silent' }));
}

/** The parsed `store:` setting of a config line such as `bothStoresForThisFile` hands out. */
function storeOf(storeLine: string) {
  const parsed = parseConfig(storeLine, {});
  if (!parsed.config) throw new Error(`not a store line: ${storeLine} (${JSON.stringify(parsed.issues)})`);
  return parsed.config.store;
}

/** A gateway that sets nothing but its store, keys, its admin token and one route to the mock. */
export function auditGatewayConfig(storeLine: string, adminToken: string): string {
  return `
${storeLine}
${keysAuth(adminToken)}
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  support: { targets: [{ connection: mock-openai, model: gpt-support }] }
`;
}
