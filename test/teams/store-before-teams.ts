/**
 * A store as the build before issue 40 left it, holding keys, records and spend rows: today's
 * schema without what teams, roles and the audit trail added (store/migrate-access.ts). Not a test
 * file itself.
 */
import { sql, type Kysely } from 'kysely';
import type { RequestRecord } from '../../src/core/request-record.js';
import { generateSecret, hashSecret, keyPrefix } from '../../src/keys/key-secret.js';
import { migrate } from '../../src/store/migrate.js';
import type { DatabaseSchema } from '../../src/store/schema.js';
import { requestRow, spendTableRow } from '../../src/store/table-rows.js';
import { sampleRecord } from '../records/sample-record.js';
import { spendRow } from '../ledger/spend-fixtures.js';

/** What the store held: each key's secret and fields as that build stored them, and its spend. */
export interface KeyBeforeTeams {
  id: string;
  secret: string;
  name: string;
  routes: string[] | null;
  direct: boolean;
  budget: { usd: number; period: 'day' | 'month' | 'total' } | null;
  limits: { rpm: number | null; tpm: number | null };
  expires_at: string | null;
  spentMicros: number;
}

const ADDED_INDEXES = ['virtual_keys_previous_key_hash', 'virtual_keys_team_id', 'requests_team_id_created_ms'];
const ADDED_TABLES = ['teams', 'admin_tokens', 'audit'];
const ADDED_COLUMNS: [string, string][] = [
  ['virtual_keys', 'team_id'],
  ['virtual_keys', 'kind'],
  ['virtual_keys', 'owner_id'],
  ['virtual_keys', 'previous_key_hash'],
  ['virtual_keys', 'previous_expires_at'],
  ['requests', 'team_id'],
];

/** Makes the store on `db` (empty) into one from before teams, with two keys, their records and spend. */
export async function storeBeforeTeams(db: Kysely<DatabaseSchema>): Promise<{ keys: KeyBeforeTeams[]; records: RequestRecord[] }> {
  await migrate(db);
  // SQLite drops no column an index names: the indexes go first.
  for (const index of ADDED_INDEXES) await sql`DROP INDEX IF EXISTS ${sql.ref(index)}`.execute(db);
  for (const table of ADDED_TABLES) await sql`DROP TABLE ${sql.table(table)}`.execute(db);
  for (const [table, column] of ADDED_COLUMNS) await sql`ALTER TABLE ${sql.table(table)} DROP COLUMN ${sql.ref(column)}`.execute(db);

  const keys: KeyBeforeTeams[] = [
    {
      id: 'key_before_teams_1',
      secret: generateSecret(),
      name: 'support bot',
      routes: ['chat'],
      direct: false,
      budget: { usd: 12.5, period: 'month' },
      limits: { rpm: 600, tpm: 100_000 },
      expires_at: '2999-01-01T00:00:00.000Z',
      spentMicros: 210_000,
    },
    { id: 'key_before_teams_2', secret: generateSecret(), name: 'batch', routes: null, direct: true, budget: null, limits: { rpm: null, tpm: null }, expires_at: null, spentMicros: 105_000 },
  ];
  for (const key of keys) {
    await sql`INSERT INTO virtual_keys (id, name, key_hash, key_prefix, routes_json, direct, budget_usd_micros, budget_period, rpm, tpm, expires_at, created_at, revoked_at)
      VALUES (${key.id}, ${key.name}, ${hashSecret(key.secret)}, ${keyPrefix(key.secret)}, ${key.routes === null ? null : JSON.stringify(key.routes)},
        ${key.direct ? 1 : 0}, ${key.budget === null ? null : key.budget.usd * 1_000_000}, ${key.budget?.period ?? null}, ${key.limits.rpm}, ${key.limits.tpm},
        ${key.expires_at}, ${new Date(Date.now() - 86_400_000).toISOString()}, ${null})`.execute(db);
  }
  // Just now: in the monthly budget's period whenever the test runs.
  const startedMs = Date.now() - 10;
  const records = [
    { id: 'req_before_teams_1', key: keys[0]!, requests: 2 },
    { id: 'req_before_teams_2', key: keys[1]!, requests: 1 },
  ].flatMap(({ id, key, requests }) =>
    Array.from({ length: requests }, (_, index) => {
      const { team: _team, ...record } = sampleRecord({ id: `${id}_${index}`, key_name: key.name, created_at: new Date(startedMs + index).toISOString() });
      return { record: record as RequestRecord, key };
    }),
  );
  for (const { record, key } of records) {
    const { team_id: _teamId, ...row } = requestRow(record);
    await db.insertInto('requests').values(row).execute();
    await db
      .insertInto('spend')
      .values(spendTableRow(spendRow({ requestId: record.id, keyId: key.id, keyName: key.name, costMicros: 105_000, createdMs: Date.parse(record.created_at) })))
      .execute();
  }
  return { keys, records: records.map(({ record }) => record) };
}
