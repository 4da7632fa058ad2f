import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { kyselyWrites } from '../../../src/store/kysely-writes.js';
import { migratePostgres, postgresDatabase } from '../../../src/store/postgres-store.js';
import { spendRow } from '../../ledger/spend-fixtures.js';
import { sampleRecord } from '../../records/sample-record.js';
import { postgresForThisFile } from '../../support/postgres-server.js';
import { postChat, startGateway } from '../../support/start-gateway.js';
import { queryPostgres } from '../postgres-helpers.js';
import { ADMIN_TOKEN, hello } from '../scenario-helpers.js';

const DAY_MS = 86_400_000;
/** More than two of the pruner's batches, so the backlog takes several passes. */
const EXPIRED = 1_200;
const { available, server } = postgresForThisFile();
const spillDirectory = mkdtempSync(join(tmpdir(), 'switchyard-pg-spill-'));

afterAll(async () => {
  rmSync(spillDirectory, { recursive: true, force: true });
});

/** A database left by an earlier run: records (and their spend rows) from 40 and from 10 days ago. */
async function seed(url: string): Promise<void> {
  await migratePostgres(url);
  const db = postgresDatabase(url, { timeoutMs: 30_000 });
  try {
    const writes = kyselyWrites(db);
    const at = (daysAgo: number, index: number) => Date.now() - daysAgo * DAY_MS + index;
    const old = Array.from({ length: EXPIRED }, (_, index) => sampleRecord({ id: `req_old_${index}`, created_at: new Date(at(40, index)).toISOString() }));
    const recent = Array.from({ length: 3 }, (_, index) => sampleRecord({ id: `req_recent_${index}`, created_at: new Date(at(10, index)).toISOString() }));
    const all = [...old, ...recent];
    for (let start = 0; start < all.length; start += 200) await writes.records(all.slice(start, start + 200));
    await writes.spend(all.map((record) => spendRow({ requestId: record.id, createdMs: Date.parse(record.created_at) })));
  } finally {
    await db.destroy();
  }
}

const count = async (url: string, text: string) => (await queryPostgres<{ count: number }>(url, `SELECT count(*)::int AS count FROM ${text}`))[0]!.count;

it.skipIf(!available)('records older than store.retention_days are pruned from PostgreSQL in the background, attempts with them, while every spend row stays', async () => {
  const url = await server().createDatabase('retention');
  await seed(url);
  const gateway = await startGateway(`
store: { kind: postgres, url: "${url}", retention_days: 30, spill_dir: "${spillDirectory}" }
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  paid:
    targets: [{ connection: mock-openai, model: gpt-paid, price: { input_per_mtok: 1000, output_per_mtok: 1000 } }]
`);
  try {
    const fresh = await postChat(gateway.url, { model: 'paid', messages: hello });
    expect(fresh.status).toBe(200);
    const freshId = fresh.headers.get('x-request-id')!;
    await gateway.app.pruner.whenCaughtUp();
    await gateway.app.records.flush();

    expect(await count(url, "requests WHERE id LIKE 'req\\_old\\_%'")).toBe(0);
    expect(await count(url, "attempts WHERE request_id LIKE 'req\\_old\\_%'")).toBe(0);
    expect(await count(url, "requests WHERE id LIKE 'req\\_recent\\_%'")).toBe(3);
    expect(await count(url, `requests WHERE id = '${freshId}'`)).toBe(1);
    expect(await count(url, "spend WHERE request_id LIKE 'req\\_old\\_%'")).toBe(EXPIRED);
    expect(await count(url, `spend WHERE request_id = '${freshId}'`)).toBe(1);
    const gone = await fetch(`${gateway.url}/admin/requests/req_old_0`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(gone.status).toBe(404);
    expect(gateway.mock.attempts).toHaveLength(1);
  } finally {
    await gateway.close();
  }
}, 60_000);
