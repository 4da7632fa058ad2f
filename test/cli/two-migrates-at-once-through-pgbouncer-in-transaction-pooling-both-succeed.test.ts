import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { migratePostgres } from '../../src/store/postgres-store.js';
import { queryPostgres } from '../scenario/postgres-helpers.js';
import { runCli } from '../support/cli-process.js';
import { pgbouncerForThisFile } from '../support/pgbouncer-server.js';

const { available, postgres, pgbouncer } = pgbouncerForThisFile();
const directory = mkdtempSync(join(tmpdir(), 'switchyard-pgbouncer-migrate-'));

afterAll(async () => {
  rmSync(directory, { recursive: true, force: true });
});

// PgBouncer hands each transaction whichever of its two server connections is free: a lock or a
// setting a migration left on a session would meet the next migration there, or be missing.
it.skipIf(!available)('switchyard migrate runs started together through PgBouncer in transaction pooling all succeed and make one schema', async () => {
  const directUrl = await postgres().createDatabase('migrate_pooled');
  const file = join(directory, 'config.yaml');
  writeFileSync(file, `auth: { mode: none }\nstore: { kind: postgres, url: "${pgbouncer().url('migrate_pooled')}" }\nconnections:\n  mock: { provider: mock }\nroutes:\n  r: { targets: [{ connection: mock, model: m }] }\n`);
  for (const round of [0, 1]) {
    const runs = await Promise.all([0, 1, 2].map(() => runCli(['migrate', '--config', file])));
    for (const run of runs) {
      expect(run.stderr, `round ${round}`).toBe('');
      expect(run.code, `round ${round}`).toBe(0);
    }
  }
  const tables = await queryPostgres<{ tablename: string }>(directUrl, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename IN ('requests', 'spend', 'virtual_keys') ORDER BY tablename");
  expect(tables.map((row) => row.tablename)).toEqual(['requests', 'spend', 'virtual_keys']);
}, 90_000);

it.skipIf(!available)('migrations started in the same instant through PgBouncer take turns, round after round on the same server connections', async () => {
  for (const round of [0, 1, 2]) {
    await postgres().createDatabase(`migrate_pooled_instant_${round}`);
    await Promise.all([0, 1, 2, 3].map(() => migratePostgres(pgbouncer().url(`migrate_pooled_instant_${round}`))));
  }
}, 90_000);
