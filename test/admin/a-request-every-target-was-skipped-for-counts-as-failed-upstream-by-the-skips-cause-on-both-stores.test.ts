import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminRequestsResponse, AdminStatsResponse, RequestRecord } from '../../src/admin/admin-api-types.js';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';

const ADMIN_TOKEN = 'skipped-targets-admin-token';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

// Nothing but connections and targets: a provider's 429 cools a target for its Retry-After; a
// spend cap cools it and takes it out structurally.
const routes = `
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
  mock-anthropic: { provider: mock, dialect: anthropic }
routes:
  throttled:
    targets:
      - { connection: mock-openai, model: "slow-down?status=429&retry_after=120" }
      - { connection: mock-anthropic, model: "slow-down-too?status=429&retry_after=120" }
  capped:
    targets:
      - { connection: mock-openai, model: "capped-o?error=insufficient_quota" }
      - { connection: mock-anthropic, model: "capped-a?error=insufficient_quota" }
`;

const stores = bothStoresForThisFile('skipped');

describe.each(stores)('on a $name store', ({ skip, store }) => {
  let gateway: TestGateway | undefined;
  /** Per route: the request whose targets answered, then the one that found them all out. */
  const sent: Record<string, { status: number; id: string }[]> = { throttled: [], capped: [] };
  let records: Map<string, RequestRecord>;

  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${gateway!.url}${path}`, { headers: admin, signal: AbortSignal.timeout(30_000) });
    expect(response.status, path).toBe(200);
    return (await response.json()) as T;
  };

  beforeAll(async () => {
    if (skip) return;
    gateway = await startGateway(`${await store()}\n${routes}`);
    for (const route of ['throttled', 'capped']) {
      for (let n = 0; n < 2; n++) {
        const response = await postChat(gateway.url, { model: route, messages: [{ role: 'user', content: 'x' }] });
        await response.text();
        sent[route]!.push({ status: response.status, id: response.headers.get('x-request-id')! });
      }
    }
    records = new Map((await get<AdminRequestsResponse>('/admin/requests?limit=100')).data.map((record) => [record.id, record]));
  }, 60_000);
  afterAll(() => gateway?.close());

  it.skipIf(skip)('the second request of each route reached no provider: every target was skipped, and each skip names the failure it stands for', () => {
    expect(sent.throttled!.map((request) => request.status)).toEqual([429, 429]);
    expect(sent.capped!.map((request) => request.status)).toEqual([429, 429]);
    const throttled = records.get(sent.throttled![1]!.id)!;
    expect(throttled).toMatchObject({ status: 'failed', error_code: 'rate_limit_exceeded', error_type: 'rate_limit_error', attempts: [] });
    expect(throttled.skipped!.map((skipped) => [skipped.reason, skipped.kind])).toEqual([
      ['cooling', 'rate_limit'],
      ['cooling', 'rate_limit'],
    ]);
    const capped = records.get(sent.capped![1]!.id)!;
    expect(capped).toMatchObject({ status: 'failed', error_code: 'quota_exhausted', attempts: [] });
    expect(capped.skipped!.map((skipped) => skipped.kind)).toEqual(['quota_exhausted', 'quota_exhausted']);
  });

  it.skipIf(skip)('/admin/stats counts them failed upstream by the skips’ cause, never refused, in total and by route', async () => {
    const stats = await get<AdminStatsResponse>('/admin/stats?bucket_s=3600');
    expect(stats.totals.outcomes).toEqual({
      served_first_try: 0,
      served_after_failover: 0,
      refused: { auth: 0, rate_limit: 0, budget: 0, bad_request: 0, other: 0 },
      failed_upstream: { rate_limit: 2, quota_exhausted: 2 },
      cancelled: 0,
    });
    expect(stats.by_route.find((row) => row.route === 'throttled')!.outcomes.failed_upstream).toEqual({ rate_limit: 2 });
    expect(stats.by_route.find((row) => row.route === 'capped')!.outcomes.failed_upstream).toEqual({ quota_exhausted: 2 });
    // Only the requests that reached a provider made attempts.
    expect(stats.totals.attempts_per_reached_request).toBe(2);
  });

  it.skipIf(skip)('?error_kind= lists them under the kind the statistics count them by, and none as refused_other', async () => {
    const listed = async (kind: string) => (await get<AdminRequestsResponse>(`/admin/requests?error_kind=${kind}`)).data.map((record) => record.id).sort();
    expect(await listed('rate_limit')).toEqual(sent.throttled!.map((request) => request.id).sort());
    expect(await listed('quota_exhausted')).toEqual(sent.capped!.map((request) => request.id).sort());
    expect(await listed('refused_other')).toEqual([]);
  });
});
