/**
 * A real Redis for the tests, of their own: Debian's `redis-server` on a free loopback port, no
 * persistence, its files in a temporary directory; stopped (and restarted on the same port, for
 * outage tests) on demand, and always stopped afterwards. Under `CI=true` a missing redis-server
 * fails the run; elsewhere the tests that need one skip, loudly.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { freePort } from './free-port.js';

function findRedisServer(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const REDIS_SERVER = findRedisServer();

/** Whether the tests that need Redis can run here; says so loudly when they cannot. */
export function redisAvailable(): boolean {
  if (REDIS_SERVER) return true;
  const message = 'redis-server is not installed: install it with `apt-get install -y redis-server` to run the shared-state tests';
  if (process.env.CI === 'true') throw new Error(`${message}. CI must run them.`);
  console.warn(`\n*** SKIPPING: ${message}. ***\n`);
  return false;
}

export interface RedisServer {
  port: number;
  url: string;
  /** Kills it (SIGKILL: an outage, not a shutdown); the port stays reserved for `start`. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty (no persistence), after `stop`. */
  start(): Promise<void>;
  /** Deletes every key, between tests. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;

export async function startRedisServer(): Promise<RedisServer> {
  if (!REDIS_SERVER) throw new Error('redis-server is not installed (see redisAvailable)');
  const binary = REDIS_SERVER;
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-redis-'));
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;

  const start = async () => {
    const started = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', directory, '--protected-mode', 'no'], {
      stdio: 'ignore',
    });
    child = started;
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        await probe.ping();
        return;
      } catch (error) {
        if (started.exitCode !== null || Date.now() > deadline) throw new Error(`redis-server did not start on ${url}: ${String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      } finally {
        probe.disconnect();
      }
    }
  };

  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
  };

  await start();
  return {
    port,
    url,
    stop,
    start,
    async flush() {
      const client = new Redis(url, { maxRetriesPerRequest: 0 });
      try {
        await client.flushall();
      } finally {
        client.disconnect();
      }
    },
    async close() {
      await stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** One Redis for the calling test file, when this machine has one (see `postgresForThisFile`). */
export function redisForThisFile(): { available: boolean; server(): RedisServer } {
  const available = redisAvailable();
  let server: RedisServer | undefined;
  beforeAll(async () => {
    if (available) server = await startRedisServer();
  }, 30_000);
  afterAll(async () => {
    await server?.close();
  });
  return {
    available,
    server() {
      if (!server) throw new Error('Redis is not running for this file');
      return server;
    },
  };
}
