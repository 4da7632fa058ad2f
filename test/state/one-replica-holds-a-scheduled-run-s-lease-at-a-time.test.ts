import { afterEach, expect, it } from 'vitest';
import { RedisLink } from '../../src/state/redis-link.js';
import { RedisRunLeases } from '../../src/state/redis-run-leases.js';
import { redisForThisFile } from '../support/redis-server.js';

const redis = redisForThisFile();
const links: RedisLink[] = [];

afterEach(async () => {
  await Promise.all(links.splice(0).map((link) => link.close()));
});

async function replica(prefix: string): Promise<RedisRunLeases> {
  const link = new RedisLink({ url: redis.server().url, keyPrefix: prefix });
  links.push(link);
  expect(await link.ready(5_000)).toBe(true);
  return new RedisRunLeases(link);
}

it.runIf(redis.available)('one replica holds a job’s lease at a time; its holder may claim it again, and it frees when it lapses', async () => {
  const a = await replica('leases:');
  const b = await replica('leases:');
  expect(await a.claim('drill', 1_500)).toBe(true);
  expect(await b.claim('drill', 400)).toBe(false);
  // Another job, and another fleet (key prefix), are leased apart.
  expect(await b.claim('canary:support', 400)).toBe(true);
  expect(await (await replica('other-fleet:')).claim('drill', 400)).toBe(true);
  expect(await a.claim('drill', 1_500)).toBe(true);
  // A renewal keeps it past its first term; B's renewal of a lease it does not hold changes nothing.
  await new Promise((resolve) => setTimeout(resolve, 900));
  await a.renew('drill', 1_500);
  await b.renew('drill', 60_000);
  await new Promise((resolve) => setTimeout(resolve, 900));
  expect(await b.claim('drill', 400)).toBe(false);
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  expect(await b.claim('drill', 400)).toBe(true);
});

it.runIf(redis.available)('without Redis every replica may run its own schedule', async () => {
  const link = new RedisLink({ url: 'redis://127.0.0.1:9', keyPrefix: 'down:' });
  links.push(link);
  const leases = new RedisRunLeases(link);
  expect(await leases.claim('drill', 1_000)).toBe(true);
  await leases.renew('drill', 1_000);
});
