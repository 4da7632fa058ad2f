import { describe, expect, it } from 'vitest';
import { RedisLink } from '../../src/state/redis-link.js';
import { RedisRunLeases } from '../../src/state/redis-run-leases.js';
import { redisForThisFile } from '../support/redis-server.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { replicaLinks } from './two-replicas.js';

const redis = redisForThisFile();
const links = replicaLinks();

describe.runIf(redis.available)('holds of running drills and canaries in Redis', () => {
  it('one run holds a name at a time and the others are told its id; only its own run renews or releases it', async () => {
    const a = new RedisRunLeases(await links.open(redis.server().url));
    const b = new RedisRunLeases(await links.open(redis.server().url));
    expect(await a.hold('drill', 'drill_a', 60_000)).toBeUndefined();
    expect(await b.hold('drill', 'drill_b', 60_000)).toBe('drill_a');
    // Another name is held apart; holding again is the renewal.
    expect(await b.hold('canary:support', 'cnr_b', 60_000)).toBeUndefined();
    expect(await a.hold('drill', 'drill_a', 60_000)).toBeUndefined();
    await b.release('drill', 'drill_b');
    expect(await b.hold('drill', 'drill_b', 60_000)).toBe('drill_a');
    await a.release('drill', 'drill_a');
    expect(await b.hold('drill', 'drill_b', 60_000)).toBeUndefined();
  });

  it('a hold nobody renews (its replica died mid-run) lapses, and another run may take it', async () => {
    const dead = new RedisRunLeases(await links.open(redis.server().url));
    const alive = new RedisRunLeases(await links.open(redis.server().url));
    expect(await dead.hold('drill', 'drill_dead', 300)).toBeUndefined();
    expect(await alive.hold('drill', 'drill_alive', 60_000)).toBe('drill_dead');
    await eventually(async () => (await alive.hold('drill', 'drill_alive', 60_000)) === undefined, 5_000, 'the dead run’s hold to lapse');
  });

  it('without Redis a replica may run alone', async () => {
    const link = new RedisLink({ url: 'redis://127.0.0.1:9', keyPrefix: 'down:' });
    try {
      const leases = new RedisRunLeases(link);
      expect(await leases.hold('drill', 'drill_alone', 1_000)).toBeUndefined();
      await leases.release('drill', 'drill_alone');
    } finally {
      await link.close();
    }
  });
});
