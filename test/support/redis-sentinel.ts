/**
 * A real Redis Sentinel set for the tests (see `redis-sentinel-set.ts`), and gateways that know
 * Redis only through it. Same skip / fail-under-CI rule as `redis-server.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { stateOf } from '../fleet/fleet-helpers.js';
import { startRedisSentinelSet, type RedisSentinelSet } from './redis-sentinel-set.js';
import { redisAvailable } from './redis-server.js';
import { startGateway, type TestGateway } from './start-gateway.js';
import { keysAuth } from './virtual-keys.js';

/** One sentinel set for the calling test file, when this machine has redis-server; always stopped afterwards. */
export function redisSentinelsForThisFile(): { available: boolean; set(): RedisSentinelSet } {
  const available = redisAvailable();
  let set: RedisSentinelSet | undefined;
  beforeAll(async () => {
    if (available) set = await startRedisSentinelSet();
  }, 60_000);
  afterAll(async () => {
    await set?.close();
  });
  return {
    available,
    set() {
      if (!set) throw new Error('the Redis Sentinel set is not running for this file');
      return set;
    },
  };
}

/**
 * Two gateways (registered for the calling file, after its sentinel set starts) that know Redis
 * only through these sentinels, with one SQLite file for keys and the ledger; `bothAre` reads
 * each one's `/readyz` state.
 */
export function gatewaysOnSentinelsForThisFile(
  sentinel: { available: boolean; set(): RedisSentinelSet },
  options: { keyPrefix: string; adminToken: string; target: string },
): { gateways(): TestGateway[]; bothAre(state: string): Promise<boolean> } {
  let directory: string | undefined;
  let gateways: TestGateway[] = [];
  beforeAll(async () => {
    if (!sentinel.available) return;
    directory = mkdtempSync(join(tmpdir(), `switchyard-${options.keyPrefix}-gateways-`));
    const config = `
state: { kind: redis, sentinels: ${JSON.stringify(sentinel.set().sentinels)}, master: ${sentinel.set().master}, key_prefix: "${options.keyPrefix}:" }
store: { kind: sqlite, path: "${join(directory, 'shared.db')}" }
${keysAuth(options.adminToken)}
connections:
  mock: { provider: mock }
routes:
  r: { targets: [${options.target}] }
`;
    gateways = [await startGateway(config)];
    gateways.push(await startGateway(config));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    if (directory) rmSync(directory, { recursive: true, force: true });
  });
  return {
    gateways: () => gateways,
    bothAre: async (state) => (await Promise.all(gateways.map((gateway) => stateOf(gateway.url)))).every((each) => each === state),
  };
}
