import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminRequestsResponse, AdminStatsResponse, OutcomesView, RequestRecord } from '../../src/admin/admin-api-types.js';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { createKey, keysAuth } from '../support/virtual-keys.js';

const ADMIN_TOKEN = 'incident-view-admin-token';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

const PRICE = 'price: { input_per_mtok: 5000, output_per_mtok: 7000 }';
const routes = `
${keysAuth(ADMIN_TOKEN)}
connections:
  mock-openai: { provider: mock, dialect: openai }
  mock-anthropic: { provider: mock, dialect: anthropic }
routes:
  steady: { retries: 0, targets: [{ connection: mock-openai, model: "steady?first_token_ms=30", ${PRICE} }] }
  failing-over:
    retries: 0
    targets:
      - { connection: mock-openai, model: "broken?status=503" }
      - { connection: mock-anthropic, model: standby, ${PRICE} }
  down: { retries: 0, targets: [{ connection: mock-openai, model: "down?status=500" }] }
`;

const stores = bothStoresForThisFile('incident');

const ask = (model: string) => ({ model, max_tokens: 8, stream: true, messages: [{ role: 'user', content: 'x' }] });

/** Every request of an outcomes split, counted once. */
function sumOf(outcomes: OutcomesView): number {
  const refused = Object.values(outcomes.refused).reduce((sum, n) => sum + n, 0);
  const failed = Object.values(outcomes.failed_upstream).reduce((sum, n) => sum + (n ?? 0), 0);
  return outcomes.served_first_try + outcomes.served_after_failover + refused + failed + outcomes.cancelled;
}

describe.each(stores)('the incident view on a $name store', ({ skip, store }) => {
  let gateway: TestGateway | undefined;
  let stats: AdminStatsResponse;
  let records: RequestRecord[];
  const sent: number[] = [];

  beforeAll(async () => {
    if (skip) return;
    gateway = await startGateway(`${await store()}\n${routes}`);
    const url = gateway.url;
    const sinceMs = Date.now() - 60_000;
    const steady = await createKey(url, ADMIN_TOKEN, { name: 'steady-team' });
    const limited = await createKey(url, ADMIN_TOKEN, { name: 'rpm-1', limits: { rpm: 1 } });
    const budgeted = await createKey(url, ADMIN_TOKEN, { name: 'small-budget', budget: { usd: 0.1, period: 'month' } });
    const as = (key: { key: string }) => ({ authorization: `Bearer ${key.key}` });
    const send = async (model: string, headers: Record<string, string>) => {
      const response = await postChat(url, ask(model), headers);
      await response.text();
      sent.push(response.status);
    };
    for (let n = 0; n < 3; n++) await send('steady', as(steady));
    for (let n = 0; n < 2; n++) await send('failing-over', as(steady));
    await send('down', as(steady));
    await send('steady', as(limited));
    await send('steady', as(limited)); // the key's rpm: refused
    await send('steady', as(budgeted));
    await send('steady', as(budgeted)); // $0.061 spent of $0.10: refused
    await send('steady', { authorization: 'Bearer sk-not-a-key' });
    await send('no-such-route', as(steady));
    const response = await fetch(`${url}/admin/stats?since=${new Date(sinceMs).toISOString()}&bucket_s=3600`, { headers: admin });
    expect(response.status).toBe(200);
    stats = (await response.json()) as AdminStatsResponse;
    records = ((await (await fetch(`${url}/admin/requests?limit=100`, { headers: admin })).json()) as AdminRequestsResponse).data;
  }, 60_000);
  afterAll(() => gateway?.close());

  it.skipIf(skip)('splits the requests sent into served, refused by class and failed upstream by kind, adding up in each bucket and in total', () => {
    expect(sent).toEqual([200, 200, 200, 200, 200, 502, 200, 429, 200, 429, 401, 404]);
    expect(stats.origin).toBe('caller');
    expect(stats.totals.requests).toBe(sent.length);
    expect(stats.totals.outcomes).toEqual({
      served_first_try: 5,
      served_after_failover: 2,
      refused: { auth: 1, rate_limit: 1, budget: 1, bad_request: 1, other: 0 },
      failed_upstream: { server_error: 1 },
      cancelled: 0,
    });
    for (const bucket of stats.data) expect(sumOf(bucket.outcomes), bucket.start).toBe(bucket.requests);
    expect(stats.data.reduce((sum, bucket) => sum + bucket.requests, 0)).toBe(sent.length);
    // Attempts: 5 + 2×2 + 1 over the 8 requests that reached a provider.
    expect(stats.totals.attempts_per_reached_request).toBeCloseTo(10 / 8, 6);
  });

  it.skipIf(skip)("counts every attempt's tokens and the records' cost, in total, by route, by provider and by key", () => {
    const input = records.flatMap((record) => record.attempts).reduce((sum, attempt) => sum + (attempt.usage?.input_tokens ?? 0), 0);
    const output = records.flatMap((record) => record.attempts).reduce((sum, attempt) => sum + (attempt.usage?.output_tokens ?? 0), 0);
    const cost = records.reduce((sum, record) => sum + (record.cost_usd ?? 0), 0);
    expect(input).toBeGreaterThan(0);
    expect(stats.totals.tokens).toMatchObject({ input, output });
    expect(stats.totals.spend_usd).toBeCloseTo(cost, 6);

    const steady = stats.by_route.find((route) => route.route === 'steady')!;
    expect(steady).toMatchObject({ requests: 8, ok_share: 5 / 8 });
    // The mock holds the first token 30 ms by its timer (the monotonic clock, in whole ms); the record
    // times it by Date.now (the wall clock, in whole ms). The two clocks' sub-millisecond phases
    // differ, so a 30 ms hold can read as 29 ms (a clean-clone CI run saw p50 29 on PostgreSQL).
    expect(steady.first_token_ms.p50).toBeGreaterThanOrEqual(29);
    expect(stats.by_route.find((route) => route.route === 'failing-over')).toMatchObject({ requests: 2, ok_share: 1, fallback_share: 1 });
    // The refused key still asked for `steady`; only the unknown model names no route.
    expect(stats.by_route.find((route) => route.route === null)).toMatchObject({ requests: 1 });
    expect(stats.by_route.map((route) => route.requests)).toEqual([...stats.by_route.map((route) => route.requests)].sort((a, b) => b - a));

    expect(stats.by_provider.map(({ connection, provider, requests }) => ({ connection, provider, requests }))).toEqual([
      { connection: 'mock-openai', provider: 'mock', requests: 5 },
      { connection: 'mock-anthropic', provider: 'mock', requests: 2 },
    ]);

    expect(stats.by_key.map((key) => [key.key_name, key.requests])).toEqual([
      ['steady-team', 7],
      ['rpm-1', 2],
      ['small-budget', 2],
    ]);
    const budgeted = stats.by_key.find((key) => key.key_name === 'small-budget')!;
    expect(budgeted.spend_usd).toBeCloseTo(0.061, 6);
    expect(budgeted.series).toHaveLength(stats.data.length);
    expect(budgeted.series.reduce((sum, point) => sum + point.spend_usd, 0)).toBeCloseTo(0.061, 6);
  });

  it.skipIf(skip)('gives each deployment its attempts, failures by kind and first tokens, and ranks the failing ones with since when', () => {
    const broken = stats.by_deployment.find((deployment) => deployment.deployment === 'mock-openai/broken?status=503')!;
    expect(broken).toMatchObject({ connection: 'mock-openai', model: 'broken?status=503', attempts: 2, failures: 2, failure_kinds: { server_error: 2 } });
    expect(broken.series).toHaveLength(stats.data.length);
    expect(broken.series.reduce((sum, point) => sum + point.failures, 0)).toBe(2);
    const steady = stats.by_deployment.find((deployment) => deployment.model === 'steady?first_token_ms=30')!;
    expect(steady).toMatchObject({ attempts: 5, failures: 0, failure_kinds: {} });
    // The mock holds the first token 30 ms; a percentile is read from bins 10 % wide, rounded down
    // (a 30.4 ms first token is counted in the bin that starts at 29 ms).
    expect(steady.first_token_ms.p95).toBeGreaterThanOrEqual(27);

    expect(stats.failing_deployments.map((deployment) => [deployment.deployment, deployment.failures])).toEqual([
      ['mock-openai/broken?status=503', 2],
      ['mock-openai/down?status=500', 1],
    ]);
    for (const failing of stats.failing_deployments) {
      expect(Date.parse(failing.since) % 60_000).toBe(0);
      expect(Date.parse(failing.since)).toBeLessThanOrEqual(Date.parse(failing.last_failure));
      expect(Date.parse(failing.last_failure)).toBeGreaterThanOrEqual(Date.parse(stats.since));
    }
  });

  it.skipIf(skip)('lists exactly the requests of an error kind, a serving deployment or a fallback, and refuses a bad filter naming it', async () => {
    const list = async (query: string) => {
      const response = await fetch(`${gateway!.url}/admin/requests?limit=100&${query}`, { headers: admin });
      expect(response.status, query).toBe(200);
      return ((await response.json()) as AdminRequestsResponse).data;
    };
    const expected: [string, (record: RequestRecord) => boolean][] = [
      ['error_kind=refused_budget', (record) => record.error_code === 'budget_exceeded'],
      ['error_kind=refused_rate_limit', (record) => record.error_code === 'rate_limit_exceeded'],
      ['error_kind=refused_auth', (record) => record.http_status === 401],
      ['error_kind=refused_bad_request', (record) => record.error_code === 'model_not_found'],
      ['error_kind=server_error', (record) => record.status === 'failed' && record.attempts.at(-1)?.kind === 'server_error'],
      ['error_kind=timeout', () => false],
      [`deployment=${encodeURIComponent('mock-anthropic/standby')}`, (record) => record.served?.model === 'standby'],
      ['fallback=true', (record) => record.fallback === true],
      ['fallback=false', (record) => record.fallback === false],
    ];
    for (const [query, matches] of expected) {
      const ids = records.filter(matches).map((record) => record.id);
      if (query !== 'error_kind=timeout') expect(ids.length, query).toBeGreaterThan(0);
      expect((await list(query)).map((record) => record.id), query).toEqual(ids);
    }
    expect((await list('error_kind=server_error&route=steady')).map((record) => record.id)).toEqual([]);
    for (const [query, param] of [['error_kind=budget', 'error_kind'], ['deployment=standby', 'deployment'], ['fallback=yes', 'fallback']]) {
      const response = await fetch(`${gateway!.url}/admin/requests?${query}`, { headers: admin });
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as { error: { param: string } }).error.param, query).toBe(param);
    }
  });

  it.skipIf(skip)("counts no caller's request under the gateway's own origins, and refuses an unknown origin naming it", async () => {
    const drills = (await (await fetch(`${gateway!.url}/admin/stats?origin=drill`, { headers: admin })).json()) as AdminStatsResponse;
    expect(drills.totals.requests).toBe(0);
    expect(drills.by_route).toEqual([]);
    const all = (await (await fetch(`${gateway!.url}/admin/stats?origin=all&bucket_s=3600&since=${stats.since}`, { headers: admin })).json()) as AdminStatsResponse;
    expect(all.totals.requests).toBe(sent.length);
    const refused = await fetch(`${gateway!.url}/admin/stats?origin=everyone`, { headers: admin });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { param: string } }).error.param).toBe('origin');
  });
});
