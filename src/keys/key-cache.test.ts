import { describe, expect, it } from 'vitest';
import { KeyCache, type KeyLookup } from './key-cache.js';
import { generateSecret, hashSecret } from './key-secret.js';
import type { VirtualKey } from './virtual-key.js';

function sampleKey(overrides: Partial<VirtualKey> = {}): VirtualKey {
  return {
    id: 'key_sample',
    name: 'sample',
    keyPrefix: 'sk-sy-abcd',
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
    ...overrides,
  };
}

/** A store that knows keys by hash, counts its lookups, and can be taken down. */
class FakeStore implements KeyLookup {
  readonly byHash = new Map<string, VirtualKey>();
  lookups = 0;
  down = false;
  /** When set, lookups wait for it (to interleave a revocation). */
  gate: Promise<void> | undefined;

  add(secret: string, key: VirtualKey): void {
    this.byHash.set(hashSecret(secret), key);
  }

  async findByHash(hash: string): Promise<VirtualKey | undefined> {
    this.lookups++;
    const key = this.byHash.get(hash);
    await this.gate;
    if (this.down) throw new Error('store unreachable');
    return key;
  }
}

function setup(options: { maxNegativeEntries?: number } = {}) {
  const store = new FakeStore();
  let nowMs = 1_000_000;
  const cache = new KeyCache({ store, negativeTtlMs: 5_000, nowMs: () => nowMs, ...options });
  return {
    store,
    cache,
    advance: (ms: number) => {
      nowMs += ms;
    },
  };
}

describe('KeyCache', () => {
  it('looks a key up in the store once, then answers from memory, even with the store down', async () => {
    const { store, cache } = setup();
    const secret = generateSecret();
    const key = sampleKey();
    store.add(secret, key);
    expect(await cache.authenticate(secret)).toBe(key);
    store.down = true;
    expect(await cache.authenticate(secret)).toBe(key);
    expect(await cache.authenticate(secret)).toBe(key);
    expect(store.lookups).toBe(1);
  });

  it('never asks the store about text that is not shaped like a key', async () => {
    const { store, cache } = setup();
    expect(await cache.authenticate('sk-not-a-key')).toBeUndefined();
    expect(await cache.authenticate('')).toBeUndefined();
    expect(store.lookups).toBe(0);
  });

  it('remembers an unknown key for the negative TTL, then asks again', async () => {
    const { store, cache, advance } = setup();
    const forged = generateSecret();
    for (let index = 0; index < 50; index++) expect(await cache.authenticate(forged)).toBeUndefined();
    expect(store.lookups).toBe(1);
    advance(4_999);
    expect(await cache.authenticate(forged)).toBeUndefined();
    expect(store.lookups).toBe(1);
    advance(1);
    store.add(forged, sampleKey());
    expect(await cache.authenticate(forged)).toBeDefined();
    expect(store.lookups).toBe(2);
  });

  it('bounds the unknown keys it remembers, dropping the oldest', async () => {
    const { store, cache } = setup({ maxNegativeEntries: 2 });
    const [first, second, third] = [generateSecret(), generateSecret(), generateSecret()];
    for (const secret of [first, second, third]) await cache.authenticate(secret);
    expect(store.lookups).toBe(3);
    await cache.authenticate(third);
    await cache.authenticate(second);
    expect(store.lookups).toBe(3);
    await cache.authenticate(first);
    expect(store.lookups).toBe(4);
  });

  it('sends one lookup to the store however many requests bring a new key at once', async () => {
    const { store, cache } = setup();
    const secret = generateSecret();
    store.add(secret, sampleKey());
    const answers = await Promise.all(Array.from({ length: 20 }, () => cache.authenticate(secret)));
    expect(answers.every((key) => key?.id === 'key_sample')).toBe(true);
    expect(store.lookups).toBe(1);
  });

  it('forgets a revoked key at once, so the next request reads the revocation', async () => {
    const { store, cache } = setup();
    const secret = generateSecret();
    store.add(secret, sampleKey());
    expect((await cache.authenticate(secret))?.revokedAt).toBeNull();
    store.add(secret, sampleKey({ revokedAt: '2025-02-01T00:00:00.000Z' }));
    cache.forget('key_sample');
    expect((await cache.authenticate(secret))?.revokedAt).toBe('2025-02-01T00:00:00.000Z');
    expect(store.lookups).toBe(2);
  });

  it('does not cache what a lookup read before a revocation landed', async () => {
    const { store, cache } = setup();
    const secret = generateSecret();
    store.add(secret, sampleKey());
    let open!: () => void;
    store.gate = new Promise<void>((resolve) => (open = resolve));
    const before = cache.authenticate(secret);
    await Promise.resolve();
    store.add(secret, sampleKey({ revokedAt: '2025-02-01T00:00:00.000Z' }));
    cache.forget('key_sample');
    // A request arriving after the revocation starts its own lookup rather than joining the old one.
    const after = cache.authenticate(secret);
    open();
    expect((await before)?.revokedAt).toBeNull();
    expect((await after)?.revokedAt).toBe('2025-02-01T00:00:00.000Z');
    store.gate = undefined;
    expect((await cache.authenticate(secret))?.revokedAt).toBe('2025-02-01T00:00:00.000Z');
    expect(store.lookups).toBe(2);
  });

  it('a refresh reads a revocation it was never told of, and keeps the cached key while the store is down', async () => {
    const { store, cache } = setup();
    const secret = generateSecret();
    store.add(secret, sampleKey());
    await cache.authenticate(secret);
    store.add(secret, sampleKey({ revokedAt: '2025-02-01T00:00:00.000Z' }));
    store.down = true;
    await cache.refresh();
    expect((await cache.authenticate(secret))?.revokedAt).toBeNull();
    store.down = false;
    await cache.refresh();
    const lookups = store.lookups;
    expect((await cache.authenticate(secret))?.revokedAt).toBe('2025-02-01T00:00:00.000Z');
    // Answered from memory: the refresh put the fresh key there.
    expect(store.lookups).toBe(lookups);
  });

  it('a refresh that read a key before a revocation landed does not put it back', async () => {
    const { store, cache } = setup();
    const secret = generateSecret();
    store.add(secret, sampleKey());
    await cache.authenticate(secret);
    let open!: () => void;
    store.gate = new Promise<void>((resolve) => (open = resolve));
    const refreshing = cache.refresh();
    await Promise.resolve();
    store.add(secret, sampleKey({ revokedAt: '2025-02-01T00:00:00.000Z' }));
    cache.forget('key_sample');
    open();
    await refreshing;
    store.gate = undefined;
    expect((await cache.authenticate(secret))?.revokedAt).toBe('2025-02-01T00:00:00.000Z');
  });

  it("reads a key's team through its team lookup, and refreshes the teams after the keys", async () => {
    const refreshed: string[] = [];
    const store = new FakeStore();
    const cache = new KeyCache({
      store: { findByHash: async (hash) => (refreshed.push('keys'), store.findByHash(hash)) },
      teams: {
        teamOf: async (teamId) => ({ id: teamId, name: 'search', routes: null, budget: null, rpm: 3, tpm: null, createdAt: '2025-01-01T00:00:00.000Z' }),
        refresh: async () => void refreshed.push('teams'),
        forget: (teamId) => void refreshed.push(`forget ${teamId}`),
      },
    });
    const secret = generateSecret();
    store.add(secret, sampleKey({ teamId: 'team_search' }));
    const key = (await cache.authenticate(secret))!;
    expect(await cache.teamOf(key)).toMatchObject({ id: 'team_search', rpm: 3 });
    expect(await cache.teamOf(sampleKey())).toBeUndefined();
    refreshed.length = 0;
    await cache.refresh();
    expect(refreshed).toEqual(['keys', 'teams']);
  });

  it('passes a store failure on without caching it as "unknown"', async () => {
    const { store, cache } = setup();
    const secret = generateSecret();
    store.add(secret, sampleKey());
    store.down = true;
    await expect(cache.authenticate(secret)).rejects.toThrow('store unreachable');
    store.down = false;
    expect(await cache.authenticate(secret)).toBeDefined();
    expect(store.lookups).toBe(2);
  });
});
