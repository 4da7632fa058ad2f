import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/core/request-record.js';
import { pgbouncerForThisFile } from '../support/pgbouncer-server.js';
import type { TestGateway } from '../support/start-gateway.js';
import { createKey } from '../support/virtual-keys.js';
import { admin, askPaid, queryPostgres, startGatewayOnPostgres } from '../scenario/postgres-helpers.js';
import { ADMIN_TOKEN } from '../scenario/scenario-helpers.js';

const { available, postgres, pgbouncer } = pgbouncerForThisFile();
const spillDirectory = mkdtempSync(join(tmpdir(), 'switchyard-pgbouncer-pair-'));
const gateways: TestGateway[] = [];
let directUrl: string;

// Both gateways start (and migrate) at once, and their pools of ten share PgBouncer's two server
// connections: each transaction of either runs on whichever session is free.
beforeAll(async () => {
  if (!available) return;
  directUrl = await postgres().createDatabase('pair');
  const pooledUrl = pgbouncer().url('pair');
  gateways.push(...(await Promise.all(['a', 'b'].map((name) => startGatewayOnPostgres(pooledUrl, join(spillDirectory, name))))));
}, 90_000);
afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
  rmSync(spillDirectory, { recursive: true, force: true });
});

it.skipIf(!available)('two gateways on one PgBouncer in transaction pooling: a key made on one works on the other, each lists the requests of both, and every request has one spend row', async () => {
  const [a, b] = gateways;
  const { id: keyId, key } = await createKey(a!.url, ADMIN_TOKEN, { name: 'shared' });
  const ids: string[] = [];
  for (let index = 0; index < 3; index++) {
    for (const gateway of [a!, b!]) {
      const response = await askPaid(gateway.url, key);
      expect(response.status).toBe(200);
      ids.push(response.headers.get('x-request-id')!);
    }
  }
  await Promise.all([a!, b!].map((gateway) => gateway.app.records.flush()));

  let total = 0;
  for (const gateway of [a!, b!]) {
    const listed = (await (await fetch(`${gateway.url}/admin/requests?route=paid&limit=50`, { headers: admin })).json()) as { data: RequestRecord[] };
    expect(listed.data.map((record) => record.id).sort()).toEqual([...ids].sort());
    total = listed.data.reduce((sum, record) => sum + record.cost_usd!, 0);
  }
  // Asking a gateway for a key's spend writes its pending spend rows first: both are asked, so
  // the second answer sums the rows of both.
  let spent = 0;
  for (const gateway of [a!, b!]) spent = ((await (await fetch(`${gateway.url}/admin/keys/${keyId}/spend`, { headers: admin })).json()) as { usd: number }).usd;
  expect(total).toBeGreaterThan(0);
  expect(spent).toBeCloseTo(total, 6);
  const rows = await queryPostgres<{ request_id: string; rows: number }>(
    directUrl,
    'SELECT request_id, count(*)::int AS rows FROM spend WHERE key_id = $1 GROUP BY request_id ORDER BY request_id',
    [keyId],
  );
  expect(rows).toEqual([...ids].sort().map((id) => ({ request_id: id, rows: 1 })));
}, 60_000);
