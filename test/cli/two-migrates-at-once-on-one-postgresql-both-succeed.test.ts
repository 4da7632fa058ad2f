import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { migratePostgres } from '../../src/store/postgres-store.js';
import { runCli } from '../support/cli-process.js';
import { postgresForThisFile } from '../support/postgres-server.js';

const { available, server } = postgresForThisFile();
const directory = mkdtempSync(join(tmpdir(), 'switchyard-migrate-race-'));

afterAll(async () => {
  rmSync(directory, { recursive: true, force: true });
});

it.skipIf(!available)('two switchyard migrate runs started together on an empty database both succeed and make one schema', async () => {
  const url = await server().createDatabase('migrate_race');
  const file = join(directory, 'config.yaml');
  writeFileSync(file, `auth: { mode: none }\nstore: { kind: postgres, url: "${url}" }\nconnections:\n  mock: { provider: mock }\nroutes:\n  r: { targets: [{ connection: mock, model: m }] }\n`);
  const runs = await Promise.all([0, 1, 2].map(() => runCli(['migrate', '--config', file])));
  for (const run of runs) {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const indexes = await client.query("SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND tablename = 'requests' ORDER BY indexname");
    expect(indexes.rows.map((row: { indexname: string }) => row.indexname)).toEqual([
      'requests_created_ms',
      'requests_key_name_created_ms',
      'requests_origin_created_ms',
      'requests_pkey',
      'requests_route_created_ms',
      'requests_status_created_ms',
      'requests_team_id_created_ms',
    ]);
  } finally {
    await client.end();
  }
}, 60_000);

/** The tables and indexes of a database's public schema, each named once per object. */
async function schemaObjects(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const objects = await client.query("SELECT tablename || '.' || indexname AS name FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1");
    return objects.rows.map((row: { name: string }) => row.name);
  } finally {
    await client.end();
  }
}

it.skipIf(!available)('migrations started in the same instant (replicas starting together) take turns instead of colliding', async () => {
  const once = await server().createDatabase('migrate_once');
  await migratePostgres(once);
  const oneSchema = await schemaObjects(once);
  expect(oneSchema).toContain('requests.requests_pkey');
  for (const round of [0, 1, 2]) {
    const url = await server().createDatabase(`migrate_instant_${round}`);
    const runs = await Promise.allSettled([0, 1, 2, 3].map(() => migratePostgres(url)));
    expect(runs.map((run) => (run.status === 'rejected' ? String(run.reason) : run.status))).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    // Four at once made the schema that one run alone makes.
    expect(await schemaObjects(url)).toEqual(oneSchema);
  }
}, 60_000);
