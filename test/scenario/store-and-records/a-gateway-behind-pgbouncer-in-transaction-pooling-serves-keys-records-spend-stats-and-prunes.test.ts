import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/core/request-record.js';
import { kyselyWrites } from '../../../src/store/kysely-writes.js';
import { migratePostgres, postgresDatabase } from '../../../src/store/postgres-store.js';
import { sampleRecord } from '../../records/sample-record.js';
import { pgbouncerForThisFile } from '../../support/pgbouncer-server.js';
import type { TestGateway } from '../../support/start-gateway.js';
import { createKey } from '../../support/virtual-keys.js';
import { admin, askPaid, queryPostgres, startGatewayOnPostgres } from '../postgres-helpers.js';
import { ADMIN_TOKEN } from '../scenario-helpers.js';

const DAY_MS = 86_400_000;
const { available, postgres, pgbouncer } = pgbouncerForThisFile();
const spillDirectory = mkdtempSync(join(tmpdir(), 'switchyard-pgbouncer-spill-'));
let gateway: TestGateway | undefined;
/** Straight to PostgreSQL, for checking the tables; the gateway only ever gets PgBouncer's URL. */
let directUrl: string;

/** Records from 40 days ago, left by an earlier run, for the retention pruner to find. */
async function seedExpiredRecords(url: string): Promise<void> {
  await migratePostgres(url);
  const db = postgresDatabase(url, { timeoutMs: 30_000, sessionSettings: false });
  try {
    const createdAt = (index: number) => new Date(Date.now() - 40 * DAY_MS + index).toISOString();
    await kyselyWrites(db).records(Array.from({ length: 5 }, (_, index) => sampleRecord({ id: `req_old_${index}`, created_at: createdAt(index) })));
  } finally {
    await db.destroy();
  }
}

beforeAll(async () => {
  if (!available) return;
  directUrl = await postgres().createDatabase('pooled');
  const pooledUrl = pgbouncer().url('pooled');
  await seedExpiredRecords(pooledUrl);
  gateway = await startGatewayOnPostgres(pooledUrl, spillDirectory, 'retention_days: 30');
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  rmSync(spillDirectory, { recursive: true, force: true });
});

it.skipIf(!available)('through PgBouncer in transaction pooling a gateway authenticates keys, lists records, sums spend, answers stats and prunes expired records', async () => {
  const sinceMs = Date.now() - 60_000;
  const { id: keyId, key } = await createKey(gateway!.url, ADMIN_TOKEN, { name: 'pooled-team' });
  const requestIds: string[] = [];
  for (let index = 0; index < 4; index++) {
    const response = await askPaid(gateway!.url, key);
    expect(response.status).toBe(200);
    requestIds.push(response.headers.get('x-request-id')!);
  }
  expect(gateway!.mock.attemptsFor('gpt-paid')).toHaveLength(4);
  await gateway!.app.pruner.whenCaughtUp();
  await gateway!.app.records.flush();

  const listed = (await (await fetch(`${gateway!.url}/admin/requests?route=paid`, { headers: admin })).json()) as { data: RequestRecord[] };
  expect(listed.data.map((record) => record.id)).toEqual([...requestIds].reverse());
  expect(listed.data.every((record) => record.key_name === 'pooled-team' && record.cost_usd! > 0)).toBe(true);
  const total = listed.data.reduce((sum, record) => sum + record.cost_usd!, 0);
  const spend = (await (await fetch(`${gateway!.url}/admin/keys/${keyId}/spend`, { headers: admin })).json()) as { usd: number };
  expect(spend.usd).toBeCloseTo(total, 6);

  const stats = (await (await fetch(`${gateway!.url}/admin/stats?since=${new Date(sinceMs).toISOString()}&bucket_s=3600`, { headers: admin })).json()) as {
    data: { requests: number; spend_usd: number }[];
  };
  expect(stats.data.reduce((sum, bucket) => sum + bucket.requests, 0)).toBe(4);
  expect(stats.data.reduce((sum, bucket) => sum + bucket.spend_usd, 0)).toBeCloseTo(total, 6);

  const rows = await queryPostgres<{ request_id: string }>(directUrl, 'SELECT request_id FROM spend WHERE key_id = $1 ORDER BY request_id', [keyId]);
  expect(rows.map((row) => row.request_id)).toEqual([...requestIds].sort());
  const expired = await queryPostgres<{ count: number }>(directUrl, "SELECT count(*)::int AS count FROM requests WHERE id LIKE 'req\\_old\\_%'");
  expect(expired[0]!.count).toBe(0);
}, 60_000);
