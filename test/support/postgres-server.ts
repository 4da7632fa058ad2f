/**
 * A real PostgreSQL for the tests, of their own: `initdb` into a temporary directory (as the
 * `postgres` user when the tests run as root, since PostgreSQL refuses to run as root), started
 * on a free loopback port with its socket in that directory, stopped and removed afterwards.
 * Under `CI=true` a missing PostgreSQL fails the run; elsewhere the tests that need one skip,
 * loudly, so `npm test` still passes on a machine without it.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { freePort } from './free-port.js';

const run = promisify(execFile);

/** The bin directory of the newest installed PostgreSQL (Debian's layout), or undefined. */
function findBinDirectory(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((version) => existsSync(join(root, version, 'bin', 'initdb')) && existsSync(join(root, version, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

const BIN_DIRECTORY = findBinDirectory();

/** Whether the tests that need PostgreSQL can run here; says so loudly when they cannot. */
export function postgresAvailable(): boolean {
  if (BIN_DIRECTORY) return true;
  const message = 'PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): install it with `apt-get install -y postgresql` to run the PostgreSQL store tests';
  if (process.env.CI === 'true') throw new Error(`${message}. CI must run them.`);
  console.warn(`\n*** SKIPPING: ${message}. ***\n`);
  return false;
}

export interface PostgresServer {
  port: number;
  /** A URL for `database` on this server (created by `createDatabase`). */
  url(database: string): string;
  createDatabase(name: string): Promise<string>;
  /** `pg_ctl stop -m fast`: connections are cut, the data stays. */
  stop(): Promise<void>;
  /** Starts it again on the same port, after `stop`. */
  start(): Promise<void>;
  /** Stops it (if running) and removes its directory. */
  close(): Promise<void>;
}

/** The postgres user's ids when running as root (PostgreSQL will not run as root), else undefined. */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

export async function startPostgresServer(): Promise<PostgresServer> {
  if (!BIN_DIRECTORY) throw new Error('PostgreSQL is not installed (see postgresAvailable)');
  const bin = BIN_DIRECTORY;
  const user = postgresUser();
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-pg-'));
  if (user) chownSync(directory, user.uid, user.gid);
  const dataDirectory = join(directory, 'data');
  const port = await freePort();
  /** Runs a PostgreSQL program, as the postgres user when we are root; async, so a gateway in this process keeps serving. */
  const runTool = (tool: string, args: string[]) => {
    const command = [join(bin, tool), ...args];
    return user ? run('runuser', ['-u', 'postgres', '--', ...command], { cwd: directory }) : run(command[0]!, command.slice(1), { cwd: directory });
  };
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c synchronous_commit=off`;
  const start = async () => {
    await runTool('pg_ctl', ['-D', dataDirectory, '-l', join(directory, 'server.log'), '-w', '-t', '30', '-o', options, 'start']);
  };
  let running = false;
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const server: PostgresServer = {
    port,
    url,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async stop() {
      await runTool('pg_ctl', ['-D', dataDirectory, '-m', 'fast', '-w', 'stop']);
      running = false;
    },
    async start() {
      await start();
      running = true;
    },
    async close() {
      try {
        if (running) await runTool('pg_ctl', ['-D', dataDirectory, '-m', 'immediate', '-w', 'stop']);
      } finally {
        running = false;
        rmSync(directory, { recursive: true, force: true });
      }
    },
  };
  try {
    await runTool('initdb', ['-D', dataDirectory, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    await server.start();
  } catch (error) {
    await server.close();
    throw error;
  }
  return server;
}

/**
 * One PostgreSQL for the calling test file, when this machine has one: started before the file's
 * own `beforeAll` hooks and stopped after its `afterAll` hooks (vitest runs after-hooks in reverse),
 * so whatever a test file starts on it is stopped first. `server()` is for tests that run only
 * when `available`.
 */
export function postgresForThisFile(): { available: boolean; server(): PostgresServer } {
  const available = postgresAvailable();
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    if (available) server = await startPostgresServer();
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });
  return {
    available,
    server() {
      if (!server) throw new Error('PostgreSQL is not running for this file');
      return server;
    },
  };
}
