/**
 * A real Redis of its own: Debian's `redis-server` on a free loopback port, no persistence, its
 * files in a temporary directory; stopped (and restarted on the same port, for outage tests) on
 * demand. The tests use it through `redis-server.ts`; the bench starts one for its Redis-state
 * gateway. Nothing here depends on the test runner.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';

function findRedisServer(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The installed redis-server, or undefined. */
export const REDIS_SERVER = findRedisServer();

export interface RedisServer {
  port: number;
  url: string;
  /** Kills it (SIGKILL: an outage, not a shutdown); the port stays reserved for `start`. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty (no persistence), after `stop`. */
  start(): Promise<void>;
  /** SIGSTOP: connections stay open and nothing is answered (a Redis stuck in a fork, a full buffer). */
  freeze(): void;
  /** SIGCONT, after `freeze`: it answers again, what was sent meanwhile first. */
  thaw(): void;
  /** Deletes every key, between tests. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;

/** `args` are added to the server's own (e.g. `--replicaof 127.0.0.1 PORT`). */
export async function startRedisServer(options: { args?: readonly string[] } = {}): Promise<RedisServer> {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-redis-'));
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;

  const start = async () => {
    child = await spawnRedis(['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', directory, '--protected-mode', 'no', ...(options.args ?? [])], url);
  };

  const stop = async () => {
    const running = child;
    child = undefined;
    if (running) await killRedis(running);
  };

  await start();
  const signal = (name: NodeJS.Signals) => {
    if (!child || child.exitCode !== null) throw new Error('redis-server is not running');
    child.kill(name);
  };
  return {
    freeze: () => signal('SIGSTOP'),
    thaw: () => signal('SIGCONT'),
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

/** Starts redis-server with `args` (a sentinel too: a config file, then `--sentinel`), resolved once it answers a PING at `url`. */
export async function spawnRedis(args: readonly string[], url: string): Promise<ChildProcess> {
  if (!REDIS_SERVER) throw new Error('redis-server is not installed (see redisAvailable)');
  const started = spawn(REDIS_SERVER, args, { stdio: 'ignore' });
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      await probe.ping();
      return started;
    } catch (error) {
      if (started.exitCode !== null || Date.now() > deadline) {
        started.kill('SIGKILL');
        throw new Error(`redis-server did not start on ${url}: ${String(error)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    } finally {
      probe.disconnect();
    }
  }
}

/** SIGKILL (an outage, not a shutdown), resolved once it has exited. */
export async function killRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** One question to the Redis at `url` on a connection of its own, closed after; a server that hangs (frozen) fails it within 2 s. */
export async function askRedis<T>(url: string, question: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2_000, commandTimeout: 2_000 });
  redis.on('error', () => undefined);
  try {
    return await question(redis);
  } finally {
    redis.disconnect();
  }
}
