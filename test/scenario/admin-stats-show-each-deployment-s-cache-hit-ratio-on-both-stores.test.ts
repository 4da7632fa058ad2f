import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresForThisFile } from '../support/postgres-server.js';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { ADMIN_TOKEN, hello, metricsText, metricValue } from './scenario-helpers.js';

interface CacheEntry {
  deployment: string;
  connection: string;
  model: string;
  input_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  hit_ratio: number | null;
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const { available: postgresAvailable, server } = postgresForThisFile();
const directory = mkdtempSync(join(tmpdir(), 'switchyard-cache-stats-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Each answer from `cached` reads 300 prompt tokens from the cache and writes 100 (docs/mock.md). */
const CACHED = 'claude-mock?cached=300&cache_write=100';
const routes = `
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-anthropic: { provider: mock, dialect: anthropic }
  mock-openai: { provider: mock, dialect: openai }
routes:
  cached: { targets: [{ connection: mock-anthropic, model: "${CACHED}" }] }
  uncached: { targets: [{ connection: mock-openai, model: plain }] }
`;

const stores = [
  { name: 'SQLite file', skip: false, store: async () => `store: { kind: sqlite, path: "${join(directory, 'cache-stats.db')}" }` },
  { name: 'PostgreSQL', skip: !postgresAvailable, store: async () => `store: { kind: postgres, url: "${await server().createDatabase('cache_stats')}", spill_dir: "${directory}" }` },
];

describe.each(stores)('prompt-cache figures on a $name store', ({ skip, store }) => {
  let gateway: TestGateway | undefined;
  beforeAll(async () => {
    if (skip) return;
    gateway = await startGateway(`${await store()}\n${routes}`);
  }, 60_000);
  afterAll(() => gateway?.close());

  it.skipIf(skip)("GET /admin/stats gives each deployment's cache hit ratio over the range, and the metric counts the tokens", async () => {
    const sinceMs = Date.now() - 60_000;
    for (const model of ['cached', 'cached', 'uncached']) {
      const response = await postChat(gateway!.url, { model, messages: hello });
      expect(response.status).toBe(200);
      await response.text();
    }
    const response = await fetch(`${gateway!.url}/admin/stats?since=${new Date(sinceMs).toISOString()}&bucket_s=3600`, { headers: admin });
    expect(response.status).toBe(200);
    const { cache } = (await response.json()) as { cache: CacheEntry[] };
    // "hi" is 1 prompt token counted from the text; the cached route's answers add 400 cached ones each.
    expect(cache).toEqual([
      {
        deployment: `mock-anthropic/${CACHED}`,
        connection: 'mock-anthropic',
        model: CACHED,
        input_tokens: 802,
        cache_read_tokens: 600,
        cache_write_tokens: 200,
        hit_ratio: 600 / 802,
      },
      { deployment: 'mock-openai/plain', connection: 'mock-openai', model: 'plain', input_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0, hit_ratio: 0 },
    ]);

    const metrics = await metricsText(gateway!.url);
    expect(metricValue(metrics, 'switchyard_cache_tokens_total', { deployment: `mock-anthropic/${CACHED}`, kind: 'read' })).toBe(600);
    expect(metricValue(metrics, 'switchyard_cache_tokens_total', { deployment: `mock-anthropic/${CACHED}`, kind: 'write' })).toBe(200);
    expect(metricValue(metrics, 'switchyard_cache_tokens_total', { deployment: 'mock-openai/plain' })).toBeUndefined();
  });
});
