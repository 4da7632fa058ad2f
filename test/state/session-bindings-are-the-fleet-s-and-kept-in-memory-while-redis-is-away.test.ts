import { describe, expect, it } from 'vitest';
import type { RedisLink } from '../../src/state/redis-link.js';
import { RedisSessionBindings } from '../../src/state/redis-session-bindings.js';
import { LocalSessionBindings } from '../../src/routing/session-bindings.js';
import { redisForThisFile } from '../support/redis-server.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { replicaLinks } from './two-replicas.js';

const redis = redisForThisFile();
const links = replicaLinks();
const IDLE_MS = 60_000;

async function replica(): Promise<{ link: RedisLink; bindings: RedisSessionBindings }> {
  const link = await links.open(redis.server().url);
  return { link, bindings: new RedisSessionBindings(link, new LocalSessionBindings()) };
}

/** Writes are fire and forget: a command after them on the same connection answers once they landed. */
const landed = (link: RedisLink) => link.commands.ping();

describe.runIf(redis.available)('session bindings on Redis', () => {
  it('a binding made on one replica is found on another, with the idle time as its TTL, and moves for both', async () => {
    const a = await replica();
    const b = await replica();
    expect(await b.bindings.renew('r:s1', IDLE_MS)).toBeUndefined();
    a.bindings.bind('r:s1', 'east/m', IDLE_MS);
    await landed(a.link);
    expect(await b.bindings.renew('r:s1', IDLE_MS)).toBe('east/m');
    const ttlMs = await a.link.commands.pttl(a.link.key('affinity:r:s1'));
    expect(ttlMs).toBeGreaterThan(IDLE_MS - 5_000);
    expect(ttlMs).toBeLessThanOrEqual(IDLE_MS);

    b.bindings.bind('r:s1', 'west/m', IDLE_MS);
    await landed(b.link);
    // A still holds east/m in memory: Redis, answering, is the fleet's word.
    expect(await a.bindings.renew('r:s1', IDLE_MS)).toBe('west/m');
  });

  it('a binding Redis lost (a restarted Redis) is answered from memory and put back for the others', async () => {
    const a = await replica();
    const b = await replica();
    a.bindings.bind('r:s2', 'east/m', IDLE_MS);
    await landed(a.link);
    await a.link.commands.del(a.link.key('affinity:r:s2'));
    expect(await a.bindings.renew('r:s2', IDLE_MS)).toBe('east/m');
    await landed(a.link);
    expect(await b.bindings.renew('r:s2', IDLE_MS)).toBe('east/m');
  });

  it('with Redis away, the bindings it had and new ones are answered from memory, and nothing fails', async () => {
    const a = await replica();
    a.bindings.bind('r:s3', 'east/m', IDLE_MS);
    await landed(a.link);
    const server = redis.server();
    await server.stop();
    try {
      await eventually(() => !a.link.up, 5_000, 'the link to notice Redis is gone');
      expect(await a.bindings.renew('r:s3', IDLE_MS)).toBe('east/m');
      a.bindings.bind('r:s4', 'west/m', IDLE_MS);
      expect(await a.bindings.renew('r:s4', IDLE_MS)).toBe('west/m');
    } finally {
      await server.start();
    }
  });
});
