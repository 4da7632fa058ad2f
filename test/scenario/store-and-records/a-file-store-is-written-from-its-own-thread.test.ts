import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { postChat, startGateway } from '../../support/start-gateway.js';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-file-store-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const storePath = join(directory, 'switchyard.db');
const config = `
store: { kind: sqlite, path: "${storePath}" }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  paid:
    targets: [{ connection: mock-openai, model: gpt-paid, price: { input_per_mtok: 1000, output_per_mtok: 1000 } }]
`;

function rowCount(table: 'requests' | 'attempts' | 'spend'): number {
  const reader = new Database(storePath, { readonly: true });
  try {
    return (reader.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    reader.close();
  }
}

it('records and spend rows of a file store land in the file, and read back after a restart', async () => {
  const gateway = await startGateway(config);
  const ids: string[] = [];
  try {
    for (let index = 0; index < 3; index++) {
      const response = await postChat(gateway.url, { model: 'paid', messages: [{ role: 'user', content: `hello ${index}` }] });
      expect(response.status).toBe(200);
      ids.push(response.headers.get('x-request-id')!);
    }
    await gateway.app.records.flush();
    expect(rowCount('requests')).toBe(3);
    expect(rowCount('attempts')).toBe(3);
  } finally {
    // Closing drains the ledger too.
    await gateway.close();
  }
  expect(rowCount('spend')).toBe(3);

  const restarted = await startGateway(config);
  try {
    const record = await restarted.app.records.get(ids[0]!);
    expect(record).toMatchObject({ id: ids[0], status: 'ok', route: 'paid', served: { connection: 'mock-openai', model: 'gpt-paid' } });
    expect(record!.cost_usd).toBeGreaterThan(0);
  } finally {
    await restarted.close();
  }
});
