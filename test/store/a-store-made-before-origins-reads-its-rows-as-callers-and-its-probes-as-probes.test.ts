import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { openConfiguredStore, type AppStore } from '../../src/store/open-configured-store.js';
import type { RequestRecord } from '../../src/core/request-record.js';
import { RecordStore } from '../../src/records/record-store.js';
import { openStore } from '../../src/store/open-database.js';
import type { DatabaseSchema } from '../../src/store/schema.js';
import { spendRow } from '../ledger/spend-fixtures.js';
import { sampleRecord } from '../records/sample-record.js';
import { postgresForThisFile } from '../support/postgres-server.js';

const silent = pino({ level: 'silent' });
const directory = mkdtempSync(join(tmpdir(), 'switchyard-old-store-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const postgres = postgresForThisFile();

// The two tables as a build from before origins made them (same text for SQLite and PostgreSQL).
const OLD_TABLES = [
  `CREATE TABLE requests (id text PRIMARY KEY, created_at text NOT NULL, created_ms bigint NOT NULL, status text NOT NULL,
     http_status integer NOT NULL, route text, model_requested text, key_name text, stream integer NOT NULL,
     latency_ms integer NOT NULL, record_json text NOT NULL)`,
  `CREATE TABLE spend (request_id text NOT NULL, attempt_n integer NOT NULL, key_id text, key_name text, route text,
     connection text NOT NULL, provider text NOT NULL, model text NOT NULL, input_tokens integer NOT NULL,
     output_tokens integer NOT NULL, cache_read_tokens integer NOT NULL, cache_write_tokens integer NOT NULL,
     cost_micros bigint NOT NULL, estimated integer NOT NULL, priced integer NOT NULL, probe integer NOT NULL,
     created_ms bigint NOT NULL, PRIMARY KEY (request_id, attempt_n))`,
];

/** A record as that build wrote it: no `origin`; its probes said `probe: true`. */
function oldRecord(overrides: Partial<RequestRecord>): Omit<RequestRecord, 'origin'> {
  const { origin: _origin, ...record } = sampleRecord(overrides);
  return record;
}

const OLD_RECORDS = [
  oldRecord({ id: 'req_old_caller', created_at: '2025-01-01T00:00:01.000Z' }),
  oldRecord({ id: 'req_old_probe', created_at: '2025-01-01T00:00:02.000Z', route: null, key_name: null, probe: true }),
  // A caller's error text that spells the probe flag is JSON-escaped in the record, so never taken for one.
  oldRecord({ id: 'req_old_quoting', created_at: '2025-01-01T00:00:03.000Z', status: 'failed', error_message: 'upstream said {"probe":true}' }),
];

const oldRows = (): [string, unknown[]][] => [
  ...OLD_RECORDS.map((record): [string, unknown[]] => [
    'INSERT INTO requests (id, created_at, created_ms, status, http_status, route, model_requested, key_name, stream, latency_ms, record_json) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)',
    [record.id, record.created_at, Date.parse(record.created_at), record.status, record.http_status, record.route, record.model_requested, record.key_name, 0, 352, JSON.stringify(record)],
  ]),
  ...[
    ['req_old_caller', 'key_a', 0],
    ['req_old_probe', null, 1],
  ].map(([requestId, keyId, probe]): [string, unknown[]] => [
    `INSERT INTO spend (request_id, attempt_n, key_id, key_name, route, connection, provider, model, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, cost_micros, estimated, priced, probe, created_ms)
     VALUES ($1, 1, $2, NULL, NULL, 'c', 'mock', 'm', 5, 1, 0, 0, 10, 0, 1, $3, 1735689601000)`,
    [requestId, keyId, probe],
  ]),
];

/** Makes the old tables with their rows, then opens the store as `serve` does (which migrates it). */
interface OldStore {
  name: string;
  available: () => boolean;
  make(): Promise<AppStore>;
}

const sqliteFile: OldStore = {
  name: 'an SQLite file',
  available: () => true,
  async make() {
    const path = join(directory, 'old.db');
    const { sqlite, db } = openStore({ kind: 'sqlite', path });
    for (const text of OLD_TABLES) sqlite.exec(text);
    // Each parameter appears once, in order: SQLite's anonymous `?` takes them as they come.
    for (const [text, values] of oldRows()) sqlite.prepare(text.replace(/\$\d+/g, '?')).run(...values);
    await db.destroy();
    return openConfiguredStore({ kind: 'sqlite', path, retention_days: 30, max_records: 100_000 }, silent);
  },
};

const postgresStore: OldStore = {
  name: 'PostgreSQL',
  available: () => postgres.available,
  async make() {
    const url = await postgres.server().createDatabase('old_store');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const text of OLD_TABLES) await client.query(text);
      for (const [text, values] of oldRows()) await client.query(text, values);
    } finally {
      await client.end();
    }
    return openConfiguredStore({ kind: 'postgres', url, retention_days: 30, spill_dir: directory }, silent);
  },
};

async function spendOrigins(db: Kysely<DatabaseSchema>): Promise<{ request_id: string; origin: string }[]> {
  return (await sql<{ request_id: string; origin: string }>`SELECT request_id, origin FROM spend ORDER BY request_id`.execute(db)).rows;
}

describe.each([sqliteFile, postgresStore])('a store made before origins, on $name', (kind) => {
  it.skipIf(!kind.available())('gains the origin column: its rows read as callers, its probes as probes, and new rows are written with theirs', async () => {
    const store = await kind.make();
    const records = new RecordStore({ db: store.db, writer: { insert: (batch) => store.writes.records(batch), flushIntervalMs: 60_000 } });
    try {
      expect((await records.list()).map((record) => [record.id, record.origin])).toEqual([
        ['req_old_quoting', 'caller'],
        ['req_old_probe', 'probe'],
        ['req_old_caller', 'caller'],
      ]);
      expect((await records.list({ origin: 'caller' })).map((record) => record.id)).toEqual(['req_old_quoting', 'req_old_caller']);
      expect((await records.list({ origin: 'probe' })).map((record) => record.id)).toEqual(['req_old_probe']);
      expect((await records.get('req_old_caller'))?.origin).toBe('caller');
      expect(await spendOrigins(store.db)).toEqual([
        { request_id: 'req_old_caller', origin: 'caller' },
        { request_id: 'req_old_probe', origin: 'probe' },
      ]);

      // The migrated tables take new rows, each with its own origin.
      records.add(sampleRecord({ id: 'req_new_canary', created_at: '2025-01-02T00:00:00.000Z', origin: 'canary' }));
      await store.writes.spend([spendRow({ requestId: 'req_new_canary', origin: 'canary' })]);
      expect((await records.list({ origin: 'canary' })).map((record) => record.id)).toEqual(['req_new_canary']);
      expect(await spendOrigins(store.db)).toContainEqual({ request_id: 'req_new_canary', origin: 'canary' });
    } finally {
      await records.close();
      await store.writes.close();
      await store.db.destroy();
    }
  }, 60_000);
});
