/**
 * A real Redis Sentinel set for the tests (see `redis-sentinel-set.ts`), and gateways that know
 * Redis only through it. Same skip / fail-under-CI rule as `redis-server.ts`.
 */
import { startRedisSentinelSet, type RedisSentinelSet } from './redis-sentinel-set.js';
import { startedForThisFile } from './redis-server.js';
import { twoGatewaysForThisFile, type TwoGateways, type TwoGatewaysOptions } from './two-gateways.js';

/** One sentinel set for the calling test file, when this machine has redis-server; always stopped afterwards. */
export function redisSentinelsForThisFile(): { available: boolean; set(): RedisSentinelSet } {
  const { available, started } = startedForThisFile(startRedisSentinelSet, 60_000, 'the Redis Sentinel set');
  return { available, set: started };
}

/** Two gateways that know Redis only through these sentinels (see `twoGatewaysForThisFile`). */
export function gatewaysOnSentinelsForThisFile(sentinel: { available: boolean; set(): RedisSentinelSet }, options: TwoGatewaysOptions): TwoGateways {
  return twoGatewaysForThisFile(sentinel.available, () => `kind: redis, sentinels: ${JSON.stringify(sentinel.set().sentinels)}, master: ${sentinel.set().master}`, options);
}
