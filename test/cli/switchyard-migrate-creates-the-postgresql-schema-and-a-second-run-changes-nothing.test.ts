import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';
import { postgresForThisFile } from '../support/postgres-server.js';

const { available, server } = postgresForThisFile();
const directory = mkdtempSync(join(tmpdir(), 'switchyard-migrate-'));

afterAll(async () => {
  rmSync(directory, { recursive: true, force: true });
});

function configFor(url: string, name: string): string {
  const file = join(directory, `${name}.yaml`);
  writeFileSync(file, `auth: { mode: none }\nstore: { kind: postgres, url: "${url}" }\nconnections:\n  mock: { provider: mock }\nroutes:\n  r: { targets: [{ connection: mock, model: m }] }\n`);
  return file;
}

async function query<T>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

describe.skipIf(!available)('switchyard migrate on PostgreSQL', () => {
  it('creates every table in an empty database, and a second run keeps what is stored', async () => {
    const url = await server().createDatabase('migrate_empty');
    const file = configFor(url, 'empty');
    const first = await runCli(['migrate', '--config', file]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^migrated the PostgreSQL store postgres:\/\/postgres@127\.0\.0\.1:\d+\/migrate_empty: the schema is up to date$/m);
    const tables = await query<{ table_name: string }>(url, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name");
    expect(tables.map((row) => row.table_name)).toEqual([
      'admin_tokens',
      'attempt_minutes',
      'attempts',
      'audit',
      'cache_minutes',
      'canary_baseline_scores',
      'canary_runs',
      'first_token_five_minutes',
      'first_token_hours',
      'first_token_minutes',
      'latency_five_minutes',
      'latency_minutes',
      'outcome_five_minutes',
      'outcome_hours',
      'outcome_minutes',
      'request_minutes',
      'requests',
      'spend',
      'spend_minutes',
      'stored_responses',
      'teams',
      'virtual_keys',
    ]);

    await query(url, "INSERT INTO virtual_keys (id, name, key_hash, key_prefix, created_at, direct) VALUES ('key_kept', 'kept', 'hash', 'sk-sy-ab', '2025-01-01T00:00:00.000Z', 1)");
    const second = await runCli(['migrate', '--config', file]);
    expect(second.code).toBe(0);
    expect(await query(url, 'SELECT id FROM virtual_keys')).toEqual([{ id: 'key_kept' }]);
    // bigint where the values need it, the same column types SQLite is given.
    const columns = await query<{ column_name: string; data_type: string }>(url, "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'spend' AND column_name IN ('cost_micros', 'created_ms', 'input_tokens') ORDER BY column_name");
    expect(columns).toEqual([
      { column_name: 'cost_micros', data_type: 'bigint' },
      { column_name: 'created_ms', data_type: 'bigint' },
      { column_name: 'input_tokens', data_type: 'integer' },
    ]);
  });

  it('says which store it could not reach, without its password, and exits 1', async () => {
    const file = configFor(`postgres://postgres:hunter2-secret@127.0.0.1:${server().port + 1}/nowhere`, 'unreachable');
    const { code, stdout, stderr } = await runCli(['migrate', '--config', file]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^switchyard: cannot migrate the PostgreSQL store postgres:\/\/postgres@127\.0\.0\.1:\d+\/nowhere: .*ECONNREFUSED/m);
    expect(stdout + stderr).not.toContain('hunter2-secret');
  });
});
