import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate } from '../store/migrate.js';
import { openDatabase } from '../store/open-database.js';
import type { DatabaseSchema } from '../store/schema.js';
import { hashSecret } from './key-secret.js';
import { KeyStore } from './key-store.js';
import type { NewKey } from './virtual-key.js';

const NEW_KEY: NewKey = {
  name: 'support bot',
  routes: ['support-*'],
  direct: true,
  budget: { usdMicros: 12_500_000, period: 'month' },
  rpm: 60,
  tpm: 100_000,
  expiresAt: '2030-01-01T00:00:00.000Z',
  teamId: null,
  kind: 'service',
  ownerId: null,
};

let db: Kysely<DatabaseSchema>;
const STARTED_MS = Date.parse('2025-06-01T12:00:00Z');
let nowMs: number;
let store: KeyStore;

beforeEach(async () => {
  nowMs = STARTED_MS;
  db = openDatabase({ kind: 'sqlite', path: ':memory:' });
  await migrate(db);
  store = new KeyStore({ db, nowMs: () => nowMs });
});

afterEach(async () => {
  await db.destroy();
});

describe('KeyStore', () => {
  it('keeps only the hash and prefix of the secret, and finds the key by hash', async () => {
    const { key, secret } = await store.create(NEW_KEY);
    expect(key).toEqual({
      id: expect.stringMatching(/^key_[0-9a-f]{16}$/),
      name: 'support bot',
      keyPrefix: secret.slice(0, 10),
      routes: ['support-*'],
      direct: true,
      budget: { usdMicros: 12_500_000, period: 'month' },
      rpm: 60,
      tpm: 100_000,
      expiresAt: '2030-01-01T00:00:00.000Z',
      createdAt: '2025-06-01T12:00:00.000Z',
      revokedAt: null,
      teamId: null,
      kind: 'service',
      ownerId: null,
    });
    const rows = await db.selectFrom('virtual_keys').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(rows[0]?.key_hash).toBe(hashSecret(secret));
    expect(await store.findByHash(hashSecret(secret))).toEqual(key);
    expect(await store.findByHash(hashSecret(`${secret}x`))).toBeUndefined();
  });

  it('stores "every route" and "no budget" as nulls', async () => {
    const { key } = await store.create({ ...NEW_KEY, routes: null, budget: null, rpm: null, tpm: null, expiresAt: null });
    expect(await store.get(key.id)).toMatchObject({ routes: null, budget: null, rpm: null, tpm: null, expiresAt: null });
  });

  it('lists keys oldest first', async () => {
    const first = await store.create({ ...NEW_KEY, name: 'first' });
    nowMs += 1_000;
    const second = await store.create({ ...NEW_KEY, name: 'second' });
    expect((await store.list()).map((key) => key.id)).toEqual([first.key.id, second.key.id]);
  });

  it('revokes once; a second revoke or an unknown id answers false', async () => {
    const { key, secret } = await store.create(NEW_KEY);
    nowMs += 5_000;
    expect(await store.revoke(key.id)).toBe(true);
    expect(await store.revoke(key.id)).toBe(false);
    expect(await store.revoke('key_unknown')).toBe(false);
    expect((await store.findByHash(hashSecret(secret)))?.revokedAt).toBe('2025-06-01T12:00:05.000Z');
  });

  it('finds a rotated key by its replaced secret, marked with when that secret stops; a second rotation forgets it', async () => {
    const { key, secret } = await store.create(NEW_KEY);
    const first = await store.rotate(key.id, 600);
    if (first.outcome !== 'done') throw new Error(first.outcome);
    expect(first.changed.previousExpiresAt).toBe('2025-06-01T12:10:00.000Z');
    expect(await store.findByHash(hashSecret(first.changed.secret))).toEqual({ ...key, keyPrefix: first.changed.secret.slice(0, 10) });
    expect(await store.findByHash(hashSecret(secret))).toEqual({ ...key, keyPrefix: first.changed.secret.slice(0, 10), replacedSecretExpiresAt: '2025-06-01T12:10:00.000Z' });
    const second = await store.rotate(key.id, 0);
    if (second.outcome !== 'done') throw new Error(second.outcome);
    expect(await store.findByHash(hashSecret(secret))).toBeUndefined();
    expect((await store.findByHash(hashSecret(first.changed.secret)))?.replacedSecretExpiresAt).toBe('2025-06-01T12:00:00.000Z');
  });

  it('of two rotations or changes read before either lands, the second writes nothing and says it raced', async () => {
    const { key } = await store.create(NEW_KEY);
    const rotations = await Promise.all([store.rotate(key.id, 60), store.rotate(key.id, 60)]);
    expect(rotations.map((result) => result.outcome).sort()).toEqual(['done', 'raced']);
    const changes = await Promise.all([store.update(key.id, { name: 'one' }), store.update(key.id, { name: 'two' })]);
    expect(changes.map((result) => result.outcome)).toEqual(['done', 'raced']);
    expect((await store.get(key.id))?.name).toBe('one');
  });

  it('changes only the fields named, clears those set to null, and changes no revoked or unknown key', async () => {
    const { key } = await store.create(NEW_KEY);
    const changed = await store.update(key.id, { name: 'renamed', budget: null, tpm: null, expiresAt: null });
    expect(changed).toEqual({ outcome: 'done', changed: { ...key, name: 'renamed', budget: null, tpm: null, expiresAt: null } });
    expect(await store.get(key.id)).toEqual({ ...key, name: 'renamed', budget: null, tpm: null, expiresAt: null });
    await store.revoke(key.id);
    expect(await store.update(key.id, { name: 'again' })).toEqual({ outcome: 'revoked' });
    expect(await store.rotate(key.id, 60)).toEqual({ outcome: 'revoked' });
    expect(await store.update('key_unknown', { name: 'x' })).toEqual({ outcome: 'unknown' });
  });

  it('keeps whether a key may use the direct form', async () => {
    const { key } = await store.create({ ...NEW_KEY, direct: false });
    expect(key.direct).toBe(false);
    expect((await store.get(key.id))?.direct).toBe(false);
  });

  it('a store made before keys had a direct flag gains it on migration, its keys keeping the direct form', async () => {
    const old = openDatabase({ kind: 'sqlite', path: ':memory:' });
    try {
      await sql`create table virtual_keys (id text primary key, name text not null, key_hash text not null unique, key_prefix text not null,
        routes_json text, budget_usd_micros bigint, budget_period text, rpm integer, tpm integer, expires_at text, created_at text not null, revoked_at text)`.execute(old);
      await sql`insert into virtual_keys (id, name, key_hash, key_prefix, created_at) values ('key_old', 'old', 'hash', 'sk-sy-old', '2025-01-01T00:00:00.000Z')`.execute(old);
      await migrate(old);
      await migrate(old);
      expect(await new KeyStore({ db: old }).get('key_old')).toMatchObject({ name: 'old', direct: true });
    } finally {
      await old.destroy();
    }
  });
});
