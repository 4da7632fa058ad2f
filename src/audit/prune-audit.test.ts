import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../core/audit-entry.js';
import { sqliteAudited } from '../store/audited-writes.js';
import { migrate } from '../store/migrate.js';
import { openStore, type OpenedStore } from '../store/open-database.js';
import { pruneAudit } from './prune-audit.js';

const DAY_MS = 86_400_000;
const NOW_MS = Date.UTC(2030, 0, 1);
let store: OpenedStore | undefined;

afterEach(async () => {
  await store?.db.destroy();
  store = undefined;
});

/** An in-memory store holding one row per age (days before now), appended in that order. */
async function trailOfAges(ages: readonly number[]): Promise<OpenedStore> {
  store = openStore({ kind: 'sqlite', path: ':memory:' });
  await migrate(store.db);
  ages.forEach((days, index) => {
    const entry: AuditEntry = {
      id: `aud_${index}`,
      at: new Date(NOW_MS - days * DAY_MS).toISOString(),
      actor: { kind: 'system', id: 'gateway', name: 'gateway', role: 'admin' },
      action: 'config.reload',
      target: { kind: 'config', id: null },
      before: null,
      after: { n: index },
      request_id: null,
      source_ip: null,
    };
    sqliteAudited(store!.sqlite, { statements: [], entry });
  });
  return store;
}

async function keptSeqs(opened: OpenedStore): Promise<number[]> {
  return (await opened.db.selectFrom('audit').select('seq').orderBy('seq').execute()).map((row) => Number(row.seq));
}

describe('pruneAudit', () => {
  it('deletes the rows before the first one still kept, a batch at a time, and stops at a late row however old', async () => {
    const opened = await trailOfAges([500, 450, 401, 10, 500, 1]);
    const olderThanMs = NOW_MS - 400 * DAY_MS;
    expect(await pruneAudit(opened.db, { olderThanMs, limit: 2 })).toBe(2);
    expect(await pruneAudit(opened.db, { olderThanMs, limit: 2 })).toBe(1);
    expect(await pruneAudit(opened.db, { olderThanMs, limit: 2 })).toBe(0);
    expect(await keptSeqs(opened)).toEqual([4, 5, 6]);
  });

  it('keeps the newest row when every row is past the retention, so the next one still chains to it', async () => {
    const opened = await trailOfAges([900, 800, 700]);
    expect(await pruneAudit(opened.db, { olderThanMs: NOW_MS, limit: 500 })).toBe(2);
    expect(await keptSeqs(opened)).toEqual([3]);
  });

  it('does nothing on an empty trail', async () => {
    const opened = await trailOfAges([]);
    expect(await pruneAudit(opened.db, { olderThanMs: NOW_MS, limit: 500 })).toBe(0);
  });
});
