/**
 * A real Redis for the tests, of their own (see `redis-process.ts`), always stopped afterwards.
 * Under `CI=true` a missing redis-server fails the run; elsewhere the tests that need one skip,
 * loudly.
 */
import { afterAll, beforeAll } from 'vitest';
import { REDIS_SERVER, startRedisServer, type RedisServer } from './redis-process.js';

export { startRedisServer, type RedisServer } from './redis-process.js';

/** Whether the tests that need Redis can run here; says so loudly when they cannot. */
export function redisAvailable(): boolean {
  if (REDIS_SERVER) return true;
  const message = 'redis-server is not installed: install it with `apt-get install -y redis-server` to run the shared-state tests';
  if (process.env.CI === 'true') throw new Error(`${message}. CI must run them.`);
  console.warn(`\n*** SKIPPING: ${message}. ***\n`);
  return false;
}

/** One Redis for the calling test file, when this machine has one (see `postgresForThisFile`). */
export function redisForThisFile(): { available: boolean; server(): RedisServer } {
  const { available, started } = startedForThisFile(() => startRedisServer(), 30_000, 'Redis');
  return { available, server: started };
}

/**
 * Whatever the calling test file starts from Debian's redis-server (a server, a sentinel set, a
 * cluster): started before its tests when this machine has redis-server, always stopped after.
 */
export function startedForThisFile<T extends { close(): Promise<void> }>(start: () => Promise<T>, timeoutMs: number, what: string): { available: boolean; started(): T } {
  const available = redisAvailable();
  let started: T | undefined;
  beforeAll(async () => {
    if (available) started = await start();
  }, timeoutMs);
  afterAll(async () => {
    await started?.close();
  });
  return {
    available,
    started() {
      if (!started) throw new Error(`${what} is not running for this file`);
      return started;
    },
  };
}
