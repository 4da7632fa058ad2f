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
