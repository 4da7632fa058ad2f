import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminRequestsResponse, AdminStatsResponse } from '../../src/admin/admin-api-types.js';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';

const ADMIN_TOKEN = 'demo-prices-admin-token';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const demo = readFileSync(new URL('../../examples/demo.yaml', import.meta.url), 'utf8');

describe('the embedded default (examples/demo.yaml)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    // Its own store and admin token in a temporary directory; the routes and prices as shipped.
    gateway = await startGateway(demo.replace(/^store:.*$/m, '').replace(/^admin:.*$/m, `admin: { token: ${ADMIN_TOKEN} }`).replace(/^server:.*$/m, ''));
  }, 30_000);
  afterAll(() => gateway?.close());

  it('says its mock prices are demo prices, and prices every mock target', () => {
    expect(demo).toMatch(/DEMO PRICES/);
    const mockTargets = demo.split('\n').filter((line) => /connection: mock-/.test(line) && /model:/.test(line));
    expect(mockTargets.length).toBeGreaterThanOrEqual(8);
    for (const line of mockTargets) expect(line, line).toMatch(/price: \{ input_per_mtok: \d+/);
  });

  it('so a fresh gateway shows what a request cost, in its record and in the stats', async () => {
    for (const model of ['demo', 'demo-claude', 'demo-failover']) {
      const response = await postChat(gateway.url, { model, messages: [{ role: 'user', content: 'hi' }] });
      expect(response.status, model).toBe(200);
      await response.text();
    }
    const { data } = (await (await fetch(`${gateway.url}/admin/requests`, { headers: admin })).json()) as AdminRequestsResponse;
    expect(data).toHaveLength(3);
    for (const record of data) expect(record.cost_usd, record.route ?? '').toBeGreaterThan(0);
    const stats = (await (await fetch(`${gateway.url}/admin/stats?bucket_s=3600`, { headers: admin })).json()) as AdminStatsResponse;
    // Cents, not fractions of one: the dashboard's two-decimal figures are not $0.00.
    expect(stats.totals.spend_usd).toBeGreaterThanOrEqual(0.01);
    expect(stats.totals.spend_usd).toBeCloseTo(data.reduce((sum, record) => sum + record.cost_usd!, 0), 6);
  });
});
