/**
 * A real PostgreSQL of its own: `initdb` into a temporary directory (as the `postgres` user when
 * run as root, since PostgreSQL refuses to run as root), started on a free loopback port with its
 * socket in that directory, stopped, frozen and removed on demand. The tests use it through
 * `postgres-server.ts`; the fault soak (bench/fault-soak.ts) starts one for its fleet. Nothing
 * here depends on the test runner.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
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

/** The bin directory of the installed PostgreSQL, or undefined when there is none. */
export const POSTGRES_BIN_DIRECTORY = findBinDirectory();

export interface PostgresServer {
  port: number;
  /** A URL for `database` on this server (created by `createDatabase`). */
  url(database: string): string;
  createDatabase(name: string): Promise<string>;
  /**
   * `pg_ctl stop -m fast` (default): connections are cut, the data stays. `immediate`: the server
   * quits without a shutdown checkpoint, as after a crash; the next start recovers from its WAL.
   */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port, after `stop`. */
  start(): Promise<void>;
  /**
   * SIGSTOP to the server and every backend: connections stay open, new ones are accepted by the
   * kernel, and nothing is answered (a host stalled on its disk, a VM paused).
   */
  freeze(): void;
  /** SIGCONT, after `freeze`: it answers again, what was sent meanwhile first. */
  thaw(): void;
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
  if (!POSTGRES_BIN_DIRECTORY) throw new Error('PostgreSQL is not installed (see postgresAvailable)');
  const bin = POSTGRES_BIN_DIRECTORY;
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
  // No fsync: the tests never crash the machine, only the server. Commits stay synchronous (the
  // default): with `synchronous_commit=off` a server stopped with `-m immediate` (a crash) forgets
  // the commits of its last few hundred milliseconds that it had already acknowledged.
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  const start = async () => {
    await runTool('pg_ctl', ['-D', dataDirectory, '-l', join(directory, 'server.log'), '-w', '-t', '30', '-o', options, 'start']);
  };
  let running = false;
  let frozen = false;
  /** The postmaster first, so it forks no new backend while the others are being stopped; SIGCONT in the reverse order. */
  const signalAll = (signal: NodeJS.Signals) => {
    if (!running) throw new Error('PostgreSQL is not running');
    const postmaster = Number(readFileSync(join(dataDirectory, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const pids = [postmaster, ...childPids(postmaster)];
    for (const pid of signal === 'SIGSTOP' ? pids : pids.reverse()) {
      try {
        process.kill(pid, signal);
      } catch (error) {
        // A backend that exited since the list was read needs no signal.
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    }
  };
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
    async stop(mode = 'fast') {
      await runTool('pg_ctl', ['-D', dataDirectory, '-m', mode, '-w', 'stop']);
      running = false;
    },
    async start() {
      await start();
      running = true;
    },
    freeze() {
      signalAll('SIGSTOP');
      frozen = true;
    },
    thaw() {
      signalAll('SIGCONT');
      frozen = false;
    },
    async close() {
      try {
        // A stopped postmaster would not act on pg_ctl's shutdown signal.
        if (frozen) server.thaw();
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

/** The processes whose parent is `pid` (Linux: read from /proc), so the backends can be frozen with their postmaster. */
function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(join('/proc', entry, 'stat'), 'utf8');
    } catch {
      continue; // It exited while the list was read.
    }
    // The command name (in parentheses) may hold spaces; the parent pid is the second field after it.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parent === pid) children.push(Number(entry));
  }
  return children;
}

