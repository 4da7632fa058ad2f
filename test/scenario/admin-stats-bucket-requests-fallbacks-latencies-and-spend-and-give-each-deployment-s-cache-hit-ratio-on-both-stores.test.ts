import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminStatsResponse, DeploymentCacheView } from '../../src/admin/admin-api-types.js';
import { latencyBin } from '../../src/store/stats-rollups.js';
import { postgresForThisFile } from '../support/postgres-server.js';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { ADMIN_TOKEN, hello, metricsText, metricValue } from './scenario-helpers.js';

type StatsBody = AdminStatsResponse;
type CacheEntry = DeploymentCacheView;

interface StoredRecord {
  status: string;
  cost_usd: number | null;
  first_token_ms: number | null;
  added_latency_ms: number;
}

/** The nearest-rank percentile, in the two-significant-digit bin the store keeps it in. */
function nearestRank(values: number[], fraction: number): number {
  const sorted = values.map(latencyBin).sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(fraction * sorted.length)) - 1]!;
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const { available: postgresAvailable, server } = postgresForThisFile();
const directory = mkdtempSync(join(tmpdir(), 'switchyard-stats-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Each answer from the `cached` route reads 300 prompt tokens from the cache and writes 100 (docs/mock.md). */
const CACHED = 'claude-mock?cached=300&cache_write=100';
const routes = `
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
  mock-anthropic: { provider: mock, dialect: anthropic }
routes:
  cached: { targets: [{ connection: mock-anthropic, model: "${CACHED}" }] }
  uncached: { targets: [{ connection: mock-openai, model: plain }] }
  steady:
    retries: 0
    targets: [{ connection: mock-openai, model: "steady?first_token_ms=40", price: { input_per_mtok: 1000, output_per_mtok: 1000 } }]
  failing-over:
    retries: 0
    targets:
      - { connection: mock-openai, model: "broken?status=503" }
      - { connection: mock-openai, model: standby, price: { input_per_mtok: 1000, output_per_mtok: 1000 } }
`;

const stores = [
  { name: 'SQLite file', skip: false, store: async () => `store: { kind: sqlite, path: "${join(directory, 'stats.db')}" }` },
  { name: 'PostgreSQL', skip: !postgresAvailable, store: async () => `store: { kind: postgres, url: "${await server().createDatabase('stats')}", spill_dir: "${directory}" }` },
];

describe.each(stores)('GET /admin/stats on a $name store', ({ skip, store }) => {
  let gateway: TestGateway | undefined;
  beforeAll(async () => {
    if (skip) return;
    gateway = await startGateway(`${await store()}\n${routes}`);
  }, 60_000);
  afterAll(() => gateway?.close());

  const stats = async (query: string) => fetch(`${gateway!.url}/admin/stats${query}`, { headers: admin, signal: AbortSignal.timeout(10_000) });

  it.skipIf(skip)('buckets the requests with their ok and fallback shares, attempts, added latency, first token and spend', async () => {
    const sinceMs = Date.now() - 120_000;
    for (const model of ['steady', 'steady', 'failing-over', 'failing-over']) {
      const response = await postChat(gateway!.url, { model, stream: true, messages: hello });
      expect(response.status).toBe(200);
      await response.text();
    }
    const refused = await postChat(gateway!.url, { model: 'no-such-route', messages: hello });
    expect(refused.status).toBe(404);
    expect(gateway!.mock.attemptsFor('broken')).toHaveLength(2);
    expect(gateway!.mock.attemptsFor('standby')).toHaveLength(2);
    expect(gateway!.mock.attemptsFor('steady')).toHaveLength(2);

    const listed = (await (await fetch(`${gateway!.url}/admin/requests?limit=10`, { headers: admin })).json()) as { data: StoredRecord[] };
    const response = await stats(`?since=${new Date(sinceMs).toISOString()}&bucket_s=3600`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toContain('no-store');
    const body = (await response.json()) as StatsBody;
    expect(body.bucket_s).toBe(3600);
    // Buckets start on whole bucket_s multiples, so successive calls line up.
    expect(Date.parse(body.since) % 3_600_000).toBe(0);
    const totals = body.data.reduce((sum, bucket) => sum + bucket.requests, 0);
    expect(totals).toBe(5);
    const busy = body.data.filter((bucket) => bucket.requests > 0);
    // The requests may straddle an hour boundary; in one bucket every figure can be checked exactly.
    if (busy.length === 1) {
      const [bucket] = busy;
      expect(bucket!.ok_share).toBeCloseTo(4 / 5, 6);
      expect(bucket!.fallback_share).toBeCloseTo(2 / 4, 6);
      // 2 + 2×2 attempts, none for the refused request.
      expect(bucket!.attempts_per_request).toBeCloseTo(6 / 5, 6);
      // The nearest rank of the records' own figures, as the store bins them (exact below 100 ms).
      const served = listed.data.filter((record) => record.status === 'ok');
      expect(bucket!.first_token_ms.p50).toBe(nearestRank(served.map((record) => record.first_token_ms!), 0.5));
      expect(bucket!.added_latency_ms.p50).toBe(nearestRank(served.map((record) => record.added_latency_ms), 0.5));
      expect(bucket!.added_latency_ms.p99).toBe(nearestRank(served.map((record) => record.added_latency_ms), 0.99));
    }
    const spend = body.data.reduce((sum, bucket) => sum + bucket.spend_usd, 0);
    const recorded = listed.data.reduce((sum, record) => sum + (record.cost_usd ?? 0), 0);
    expect(recorded).toBeGreaterThan(0);
    expect(spend).toBeCloseTo(recorded, 6);

    const minutes = (await (await stats(`?since=${new Date(sinceMs).toISOString()}&bucket_s=60`)).json()) as StatsBody;
    expect(minutes.data.length).toBeGreaterThanOrEqual(3);
    expect(minutes.data.reduce((sum, bucket) => sum + bucket.requests, 0)).toBe(5);
    const empty = minutes.data.find((bucket) => bucket.requests === 0)!;
    expect(empty).toMatchObject({ ok_share: null, fallback_share: null, attempts_per_request: null, added_latency_ms: { p50: null, p99: null }, spend_usd: 0 });
  });

  it.skipIf(skip)('refuses a bad parameter with a 400 naming it, and too many buckets', async () => {
    const cases: [string, string][] = [
      ['?since=yesterday', 'since'],
      [`?since=${new Date(Date.now() + 3_600_000).toISOString()}`, 'since'],
      ['?bucket_s=0', 'bucket_s'],
      ['?bucket_s=90', 'bucket_s'],
      ['?bucket_s=1.5', 'bucket_s'],
      ['?bucket_s=86401', 'bucket_s'],
      [`?since=${new Date(Date.now() - 2 * 86_400_000).toISOString()}&bucket_s=60`, 'bucket_s'],
      ['?bucket=60', 'bucket'],
      ['?bucket_s=60&bucket_s=120', 'bucket_s'],
    ];
    for (const [query, param] of cases) {
      const response = await stats(query);
      expect(response.status, query).toBe(400);
      const body = (await response.json()) as { error: { param: string; message: string } };
      expect(body.error.param, query).toBe(param);
      expect(body.error.message, query).toContain(`"${param}"`);
    }
    expect((await fetch(`${gateway!.url}/admin/stats`)).status).toBe(401);
    const byDefault = (await (await stats('')).json()) as StatsBody;
    expect(byDefault.bucket_s).toBe(60);
    expect(byDefault.data.length).toBeGreaterThanOrEqual(60);
  });

  it.skipIf(skip)("gives each deployment's cache hit ratio over the range, and the metric counts the cached tokens", async () => {
    for (const model of ['cached', 'cached', 'uncached']) {
      const response = await postChat(gateway!.url, { model, messages: hello });
      expect(response.status).toBe(200);
      await response.text();
    }
    const response = await stats(`?since=${new Date(Date.now() - 60_000).toISOString()}&bucket_s=3600`);
    expect(response.status).toBe(200);
    const { cache } = (await response.json()) as { cache: CacheEntry[] };
    // "hi" is 1 prompt token counted from the text; the cached route's answers add 400 cached ones each.
    expect(cache.find((entry) => entry.connection === 'mock-anthropic')).toEqual({
      deployment: `mock-anthropic/${CACHED}`,
      connection: 'mock-anthropic',
      model: CACHED,
      input_tokens: 802,
      cache_read_tokens: 600,
      cache_write_tokens: 200,
      hit_ratio: 600 / 802,
    });
    expect(cache.find((entry) => entry.model === 'plain')).toMatchObject({ deployment: 'mock-openai/plain', input_tokens: 1, cache_read_tokens: 0, hit_ratio: 0 });
    expect(cache.map((entry) => entry.deployment)).toEqual(cache.map((entry) => entry.deployment).sort());

    const metrics = await metricsText(gateway!.url);
    expect(metricValue(metrics, 'switchyard_cache_tokens_total', { deployment: `mock-anthropic/${CACHED}`, kind: 'read' })).toBe(600);
    expect(metricValue(metrics, 'switchyard_cache_tokens_total', { deployment: `mock-anthropic/${CACHED}`, kind: 'write' })).toBe(200);
    expect(metricValue(metrics, 'switchyard_cache_tokens_total', { deployment: 'mock-openai/plain' })).toBeUndefined();
  });
});
