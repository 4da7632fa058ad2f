import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConfiguredStore, type AppStore } from '../../src/store/open-configured-store.js';
import { StoredResponses, type StoredResponse } from '../../src/conversations/stored-responses.js';
import { postgresAvailable, startPostgresServer, type PostgresServer } from '../support/postgres-server.js';

const silent = pino({ level: 'silent' });
const directory = mkdtempSync(join(tmpdir(), 'switchyard-stored-responses-'));
let server: PostgresServer | undefined;

const kinds = [
  { name: 'an SQLite file (through the store thread)', available: true, open: () => openConfiguredStore({ kind: 'sqlite', path: join(directory, 'store.db'), retention_days: 30, max_records: 100_000 }, silent) },
  { name: 'an in-memory SQLite', available: true, open: () => openConfiguredStore({ kind: 'sqlite', path: ':memory:', retention_days: 30, max_records: 100_000 }, silent) },
  {
    name: 'PostgreSQL',
    available: postgresAvailable(),
    async open() {
      server ??= await startPostgresServer();
      const url = await server.createDatabase('stored_responses');
      return openConfiguredStore({ kind: 'postgres', url, retention_days: 30, spill_dir: directory }, silent);
    },
  },
];

afterAll(async () => {
  await server?.close();
  rmSync(directory, { recursive: true, force: true });
});

function stored(id: string, fields: Partial<StoredResponse> = {}): StoredResponse {
  return {
    id,
    keyId: 'key_a',
    createdMs: Date.now(),
    model: 'gpt-main',
    provider: 'openai',
    connection: 'openai-main',
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'ünïcode ✓' }] }],
    response: { id, object: 'response', output: [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' }] },
    ...fields,
  };
}

describe.each(kinds)('stored responses on $name', (kind) => {
  let store: AppStore;
  let responses: StoredResponses;

  beforeAll(async () => {
    if (!kind.available) return;
    store = await kind.open();
    responses = new StoredResponses(store.db);
  }, 60_000);
  afterAll(async () => {
    if (!kind.available) return;
    await store.writes.close();
    await store.db.destroy();
  });

  it.runIf(kind.available)('keeps a response whole, for its own key and for the one scope of auth.mode none, and for no other key', async () => {
    const saved = stored('resp_whole');
    await responses.save(saved);
    // A write repeated (its answer lost in transit) stores once and changes nothing.
    await responses.save({ ...saved, model: 'other' });
    expect(await responses.find('resp_whole', { keyId: 'key_a' }, 0)).toEqual(saved);
    expect(await responses.find('resp_whole', { keyId: null }, 0)).toEqual(saved);
    expect(await responses.find('resp_whole', { keyId: 'key_b' }, 0)).toBeUndefined();
    expect(await responses.find('resp_missing', { keyId: 'key_a' }, 0)).toBeUndefined();
  });

  it.runIf(kind.available)('one older than the retention is not found, even before the pruner has deleted it', async () => {
    const createdMs = Date.now() - 10_000;
    await responses.save(stored('resp_old', { createdMs }));
    expect(await responses.find('resp_old', { keyId: 'key_a' }, createdMs + 1)).toBeUndefined();
    expect((await responses.find('resp_old', { keyId: 'key_a' }, createdMs))?.id).toBe('resp_old');
  });

  it.runIf(kind.available)('remove deletes only in the caller’s scope', async () => {
    await responses.save(stored('resp_removed'));
    expect(await responses.remove('resp_removed', { keyId: 'key_b' })).toBe(false);
    expect(await responses.remove('resp_removed', { keyId: 'key_a' })).toBe(true);
    expect(await responses.remove('resp_removed', { keyId: 'key_a' })).toBe(false);
    expect(await responses.find('resp_removed', { keyId: null }, 0)).toBeUndefined();
  });

  it.runIf(kind.available)('prune deletes the oldest past the cut-off, a batch at a time, and nothing newer', async () => {
    const base = Date.UTC(2020, 0, 1);
    for (let index = 0; index < 5; index++) await responses.save(stored(`resp_prune_${index}`, { createdMs: base + index }));
    expect(await responses.prune({ olderThanMs: base + 4, limit: 3 })).toBe(3);
    expect(await responses.find('resp_prune_2', { keyId: null }, 0)).toBeUndefined();
    expect((await responses.find('resp_prune_3', { keyId: null }, 0))?.id).toBe('resp_prune_3');
    expect(await responses.prune({ olderThanMs: base + 4, limit: 3 })).toBe(1);
    expect(await responses.prune({ olderThanMs: base + 4, limit: 3 })).toBe(0);
    expect((await responses.find('resp_prune_4', { keyId: null }, 0))?.id).toBe('resp_prune_4');
    expect((await responses.find('resp_whole', { keyId: null }, 0))?.id).toBe('resp_whole');
  });
});
