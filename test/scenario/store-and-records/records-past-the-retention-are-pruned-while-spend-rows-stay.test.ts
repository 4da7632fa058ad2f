import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { migrate } from '../../../src/store/migrate.js';
import { openStore } from '../../../src/store/open-database.js';
import { SqliteInserts } from '../../../src/store/sqlite-inserts.js';
import { spendRow } from '../../ledger/spend-fixtures.js';
import { sampleRecord } from '../../records/sample-record.js';
import { postChat, startGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, hello, metricsText, metricValue } from '../scenario-helpers.js';

const DAY_MS = 86_400_000;
/** More than two of the pruner's batches, so the backlog takes several passes. */
const EXPIRED = 1_200;
const directory = mkdtempSync(join(tmpdir(), 'switchyard-retention-'));
const storePath = join(directory, 'switchyard.db');
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A store left by an earlier run: records (and their spend rows) from 40 and from 10 days ago. */
async function seedStore(): Promise<void> {
  const { db, sqlite } = openStore({ kind: 'sqlite', path: storePath });
  await migrate(db);
  const inserts = new SqliteInserts(sqlite);
  const at = (daysAgo: number, index: number) => Date.now() - daysAgo * DAY_MS + index;
  const old = Array.from({ length: EXPIRED }, (_, index) => sampleRecord({ id: `req_old_${index}`, created_at: new Date(at(40, index)).toISOString() }));
  const recent = Array.from({ length: 3 }, (_, index) => sampleRecord({ id: `req_recent_${index}`, created_at: new Date(at(10, index)).toISOString() }));
  inserts.records([...old, ...recent]);
  inserts.spend([...old, ...recent].map((record) => spendRow({ requestId: record.id, createdMs: Date.parse(record.created_at) })));
  await db.destroy();
}

function count(sql: string): number {
  const reader = new Database(storePath, { readonly: true });
  try {
    return reader.prepare(sql).pluck().get() as number;
  } finally {
    reader.close();
  }
}

it('records older than store.retention_days are pruned in the background, attempts with them, while every spend row stays', async () => {
  await seedStore();
  const gateway = await startGateway(`
store: { kind: sqlite, path: "${storePath}", retention_days: 30 }
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

    expect(count(`SELECT count(*) FROM requests WHERE id LIKE 'req_old_%'`)).toBe(0);
    expect(count(`SELECT count(*) FROM attempts WHERE request_id LIKE 'req_old_%'`)).toBe(0);
    expect(count(`SELECT count(*) FROM requests WHERE id LIKE 'req_recent_%'`)).toBe(3);
    expect(count(`SELECT count(*) FROM requests WHERE id = '${freshId}'`)).toBe(1);
    // Spend rows are money: the old ones stay, and the fresh request's joined them.
    expect(count(`SELECT count(*) FROM spend WHERE request_id LIKE 'req_old_%'`)).toBe(EXPIRED);
    expect(count(`SELECT count(*) FROM spend WHERE request_id = '${freshId}'`)).toBe(1);

    const gone = await fetch(`${gateway.url}/admin/requests/req_old_0`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(gone.status).toBe(404);
    expect(metricValue(await metricsText(gateway.url), 'switchyard_records_pruned_total')).toBe(EXPIRED);
    // The provider saw only the fresh request.
    expect(gateway.mock.attempts).toHaveLength(1);
  } finally {
    await gateway.close();
  }
});
