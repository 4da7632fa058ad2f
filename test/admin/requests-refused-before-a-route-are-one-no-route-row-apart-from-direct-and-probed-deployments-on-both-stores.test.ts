import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminRequestsResponse, AdminStatsResponse } from '../../src/admin/admin-api-types.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';

const ADMIN_TOKEN = 'no-route-admin-token';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

// A small body limit is what this is about: a body past it is refused before its model is read.
const routes = `
admin: { token: ${ADMIN_TOKEN} }
server: { max_body_bytes: 4096 }
connections:
  mock-openai: { provider: mock, dialect: openai }
  mock-anthropic: { provider: mock, dialect: anthropic }
routes:
  failover:
    targets:
      - { connection: mock-openai, model: "primary?status=503" }
      - { connection: mock-anthropic, model: standby }
`;
const PROBED = 'mock-openai/primary?status=503';

const stores = bothStoresForThisFile('no-route');

describe.each(stores)('on a $name store', ({ skip, store }) => {
  let gateway: TestGateway | undefined;
  const statuses: number[] = [];

  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${gateway!.url}${path}`, { headers: admin, signal: AbortSignal.timeout(30_000) });
    expect(response.status, path).toBe(200);
    return (await response.json()) as T;
  };
  const post = async (body: string) => {
    const response = await fetch(`${gateway!.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(30_000) });
    await response.text();
    statuses.push(response.status);
  };

  beforeAll(async () => {
    if (skip) return;
    gateway = await startGateway(`${await store()}\n${routes}`);
    await post('{"model": "failover", ');
    await post(JSON.stringify({ model: 'no-such-route', messages: [{ role: 'user', content: 'x' }] }));
    await post(JSON.stringify({ model: 'failover', messages: [{ role: 'user', content: 'x'.repeat(8_192) }] }));
    // A bad body that names a route is that route's, and a `connection/model` is its own row.
    await post(JSON.stringify({ model: 'failover', messages: 'not a list' }));
    await post(JSON.stringify({ model: 'mock-anthropic/standby', messages: [{ role: 'user', content: 'x' }] }));
    // The failover route's 503s eject its primary: the gateway probes it, naming it as the route.
    for (let n = 0; n < 3; n++) {
      const response = await postChat(gateway.url, { model: 'failover', messages: [{ role: 'user', content: 'x' }] });
      await response.text();
      statuses.push(response.status);
    }
    await eventually(async () => (await get<AdminRequestsResponse>('/admin/requests?origin=probe')).data.length > 0, 20_000, 'a recovery probe of the ejected primary');
  }, 60_000);
  afterAll(() => gateway?.close());

  it.skipIf(skip)('a body that is not JSON, an unknown model and a body too large are one "no route" row (route null) of refusals', async () => {
    expect(statuses).toEqual([400, 404, 413, 400, 200, 200, 200, 200]);
    const stats = await get<AdminStatsResponse>('/admin/stats?bucket_s=3600');
    const noRoute = stats.by_route.filter((row) => row.route === null);
    expect(noRoute).toHaveLength(1);
    expect(noRoute[0]).toMatchObject({ requests: 3, outcomes: { refused: { bad_request: 3 } } });
    expect(stats.by_route.find((row) => row.route === 'failover')).toMatchObject({ requests: 4, outcomes: { refused: { bad_request: 1 } } });
    expect(stats.by_route.find((row) => row.route === 'mock-anthropic/standby')).toMatchObject({ requests: 1, outcomes: { served_first_try: 1 } });
  });

  it.skipIf(skip)("every origin's figures keep the gateway's probes out of it: a probe names the deployment it asked", async () => {
    const stats = await get<AdminStatsResponse>('/admin/stats?bucket_s=3600&origin=all');
    expect(stats.by_route.filter((row) => row.route === null).map((row) => row.requests)).toEqual([3]);
    expect(stats.by_route.find((row) => row.route === PROBED)!.requests).toBeGreaterThan(0);
    const probes = (await get<AdminRequestsResponse>('/admin/requests?origin=probe')).data;
    expect(probes.every((record) => record.route === PROBED)).toBe(true);
  });
});
