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
