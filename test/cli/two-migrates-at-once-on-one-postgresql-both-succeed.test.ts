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
  const runs = await Promise.all([0, 1, 2].map(() => runCli(['migrate', '--config', file], { timeoutMs: 30_000 })));
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
    ]);
  } finally {
    await client.end();
  }
}, 60_000);

it.skipIf(!available)('migrations started in the same instant (replicas starting together) take turns instead of colliding', async () => {
  for (const round of [0, 1, 2]) {
    const url = await server().createDatabase(`migrate_instant_${round}`);
    await Promise.all([0, 1, 2, 3].map(() => migratePostgres(url)));
  }
}, 60_000);
