import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConfiguredStore, type AppStore } from '../../src/store/open-configured-store.js';
import type { CanaryRun } from '../../src/canaries/canary-run.js';
import { CanaryStore, RUNS_KEPT_PER_ROUTE } from '../../src/canaries/canary-store.js';
import { postgresAvailable, startPostgresServer, type PostgresServer } from '../support/postgres-server.js';

const silent = pino({ level: 'silent' });
const directory = mkdtempSync(join(tmpdir(), 'switchyard-canary-store-'));
let server: PostgresServer | undefined;

const kinds = [
  { name: 'an SQLite file (through the store thread)', available: true, open: () => openConfiguredStore({ kind: 'sqlite', path: join(directory, 'store.db'), retention_days: 30, max_records: 100_000 }, silent) },
  {
    name: 'PostgreSQL',
    available: postgresAvailable(),
    async open() {
      server ??= await startPostgresServer();
      const url = await server.createDatabase('canaries');
      return openConfiguredStore({ kind: 'postgres', url, retention_days: 30, spill_dir: directory }, silent);
    },
  },
];

afterAll(async () => {
  await server?.close();
  rmSync(directory, { recursive: true, force: true });
});

const START_MS = Date.parse('2026-12-01T00:00:00.000Z');

function run(route: string, n: number, score: number): CanaryRun {
  return {
    id: `cnr_${route}_${String(n).padStart(3, '0')}`,
    route,
    started_at: new Date(START_MS + n * 1000).toISOString(),
    finished_at: new Date(START_MS + n * 1000 + 500).toISOString(),
    score,
    baseline: null,
    threshold: null,
    dropped: false,
    prompts: [{ index: 0, score, served: 'c/m', request_id: `req_${n}` }],
  };
}

describe.each(kinds)('canary runs and baselines on $name', (kind) => {
  let store: AppStore;
  let canaries: CanaryStore;

  beforeAll(async () => {
    if (!kind.available) return;
    store = await kind.open();
    canaries = new CanaryStore(store.db);
  }, 60_000);
  afterAll(async () => {
    if (!kind.available) return;
    await store.writes.close();
    await store.db.destroy();
  });

  it.runIf(kind.available)(`keeps the newest ${RUNS_KEPT_PER_ROUTE} runs of each route, whole, newest first`, async () => {
    for (let n = 1; n <= RUNS_KEPT_PER_ROUTE + 5; n++) await canaries.addRun(run('kept', n, n / 100));
    await canaries.addRun(run('other', 1, 0.5));
    const kept = await canaries.runs('kept');
    expect(kept.map((entry) => entry.id)).toEqual(Array.from({ length: RUNS_KEPT_PER_ROUTE }, (_, index) => run('kept', RUNS_KEPT_PER_ROUTE + 5 - index, 0).id));
    expect(kept[0]).toEqual(run('kept', RUNS_KEPT_PER_ROUTE + 5, (RUNS_KEPT_PER_ROUTE + 5) / 100));
    expect(await canaries.runs('other')).toEqual([run('other', 1, 0.5)]);
  });

  it.runIf(kind.available)('learns a baseline as the mean of the first three scores, ignores later ones, and forgets it on reset', async () => {
    expect(await canaries.learnedBaseline('learned')).toEqual({ baseline: null, runs: 0 });
    await canaries.learnFrom(run('learned', 2, 0.8));
    await canaries.learnFrom(run('learned', 1, 0.9));
    expect(await canaries.learnedBaseline('learned')).toEqual({ baseline: null, runs: 2 });
    await canaries.learnFrom(run('learned', 3, 0.7));
    // A fourth (two replicas learning at once) is never counted: the earliest three are the baseline.
    await canaries.learnFrom(run('learned', 4, 0.1));
    const learned = await canaries.learnedBaseline('learned');
    expect(learned.runs).toBe(3);
    expect(learned.baseline).toBeCloseTo(0.8, 12);
    expect(await canaries.resetBaseline('learned')).toBe(true);
    expect(await canaries.resetBaseline('learned')).toBe(false);
    expect(await canaries.learnedBaseline('learned')).toEqual({ baseline: null, runs: 0 });
  });
});
