/**
 * A real PgBouncer for the tests, in front of a test PostgreSQL (postgres-server.ts), the way
 * production runs it: `pool_mode = transaction` with a PgBouncer config that sets nothing for
 * Switchyard, and two server connections per database, so several clients really take turns on
 * the same PostgreSQL sessions — whatever a client leaves in a session (a lock, a setting) is met
 * by another client. Under `CI=true` a missing pgbouncer fails the run; elsewhere the tests that
 * need one skip, loudly.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { freePort } from './free-port.js';
import { postgresForThisFile, type PostgresServer } from './postgres-server.js';

const PGBOUNCER = '/usr/sbin/pgbouncer';

/** Server connections per database and user: fewer than the clients the tests open. */
export const PGBOUNCER_POOL_SIZE = 2;

/** Whether the tests that need PgBouncer can run here; says so loudly when they cannot. */
export function pgbouncerAvailable(): boolean {
  if (existsSync(PGBOUNCER)) return true;
  const message = `PgBouncer is not installed (no ${PGBOUNCER}): install it with \`apt-get install -y pgbouncer\` to run the PgBouncer store tests`;
  if (process.env.CI === 'true') throw new Error(`${message}. CI must run them.`);
  console.warn(`\n*** SKIPPING: ${message}. ***\n`);
  return false;
}

export interface PgBouncer {
  port: number;
  /** A URL for `database` (created on the PostgreSQL behind) through PgBouncer. */
  url(database: string): string;
  close(): Promise<void>;
}

/** Starts PgBouncer on a free loopback port in front of `server` and waits until it answers. */
export async function pgbouncerFor(server: PostgresServer): Promise<PgBouncer> {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-pgbouncer-'));
  const port = await freePort();
  const root = process.getuid?.() === 0;
  writeFileSync(join(directory, 'userlist.txt'), '"postgres" ""\n');
  writeFileSync(
    join(directory, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=127.0.0.1 port=${server.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(directory, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${PGBOUNCER_POOL_SIZE}`,
      'max_client_conn = 60',
      `logfile = ${join(directory, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  // PgBouncer will not run as root: `-u` switches to the postgres user, who must own its files.
  if (root) {
    const ids = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    for (const file of ['', 'userlist.txt', 'pgbouncer.ini']) chownSync(join(directory, file), ids('-u'), ids('-g'));
  }
  const child = spawn(PGBOUNCER, [...(root ? ['-u', 'postgres'] : []), join(directory, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const close = async () => {
    await stop(child);
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    await waitUntilAnswering(url('postgres'), child, () => stderr);
  } catch (error) {
    await close();
    throw error;
  }
  return { port, url, close };
}

/** Polls with a query through PgBouncer until one succeeds; a PgBouncer that exits is an error naming its output. */
async function waitUntilAnswering(url: string, child: ChildProcess, output: () => string): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited (${child.exitCode}): ${output()}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/**
 * PostgreSQL and a PgBouncer in front of it for the calling test file, when this machine has
 * both: PgBouncer starts after PostgreSQL and stops before it.
 */
export function pgbouncerForThisFile(): { available: boolean; postgres(): PostgresServer; pgbouncer(): PgBouncer } {
  const postgres = postgresForThisFile();
  const available = postgres.available && pgbouncerAvailable();
  let pgbouncer: PgBouncer | undefined;
  beforeAll(async () => {
    if (available) pgbouncer = await pgbouncerFor(postgres.server());
  }, 60_000);
  afterAll(async () => {
    await pgbouncer?.close();
  });
  return {
    available,
    postgres: () => postgres.server(),
    pgbouncer() {
      if (!pgbouncer) throw new Error('PgBouncer is not running for this file');
      return pgbouncer;
    },
  };
}
