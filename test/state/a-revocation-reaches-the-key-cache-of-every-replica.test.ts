import { afterEach, expect, it } from 'vitest';
import { KeyCache, type KeyLookup } from '../../src/keys/key-cache.js';
import { generateSecret, hashSecret } from '../../src/keys/key-secret.js';
import type { VirtualKey } from '../../src/keys/virtual-key.js';
import { RedisLink } from '../../src/state/redis-link.js';
import { RedisKeyChanges } from '../../src/state/redis-key-changes.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { redisForThisFile } from '../support/redis-server.js';

const redis = redisForThisFile();
const links: RedisLink[] = [];
afterEach(async () => {
  await Promise.all(links.splice(0).map((link) => link.close()));
});

const secret = generateSecret();
const active: VirtualKey = {
  id: 'key_shared',
  name: 'shared',
  keyPrefix: secret.slice(0, 10),
  routes: null,
  direct: true,
  budget: null,
  rpm: null,
  tpm: null,
  expiresAt: null,
  createdAt: '2025-01-01T00:00:00.000Z',
  revokedAt: null,
  teamId: null,
  kind: 'service',
  ownerId: null,
};

/** The one store both replicas read (PostgreSQL in a fleet); counts its lookups. */
const store = new (class implements KeyLookup {
  key = active;
  lookups = 0;
  async findByHash(hash: string): Promise<VirtualKey | undefined> {
    this.lookups++;
    return hash === hashSecret(secret) ? this.key : undefined;
  }
})();

/** One replica's key cache and revocations on a link of its own. */
async function replica(prefix: string): Promise<{ cache: KeyCache; revocations: RedisKeyChanges }> {
  const link = new RedisLink({ url: redis.server().url, keyPrefix: prefix });
  links.push(link);
  expect(await link.ready(5_000)).toBe(true);
  const cache = new KeyCache({ store });
  return { cache, revocations: new RedisKeyChanges(link, cache) };
}

it.runIf(redis.available)('a key revoked on one replica is dropped from the other replica’s cache within 1 s, and only that key prefix hears it', async () => {
  const a = await replica('revocations:');
  const b = await replica('revocations:');
  const elsewhere = await replica('other-fleet:');
  for (const { cache } of [a, b, elsewhere]) expect((await cache.authenticate(secret))?.revokedAt).toBeNull();
  expect(store.lookups).toBe(3);

  store.key = { ...active, revokedAt: '2025-02-01T00:00:00.000Z' };
  a.revocations.forget(active.id);
  // A forgets at once; B on hearing the message; a gateway with another key prefix never hears it.
  expect((await a.cache.authenticate(secret))?.revokedAt).toBe('2025-02-01T00:00:00.000Z');
  await eventually(async () => (await b.cache.authenticate(secret))?.revokedAt !== null, 1_000, 'replica B reading the revocation');
  expect((await elsewhere.cache.authenticate(secret))?.revokedAt).toBeNull();
  expect(store.lookups).toBe(5);
});
