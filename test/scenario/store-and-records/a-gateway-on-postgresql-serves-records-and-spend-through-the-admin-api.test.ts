import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/core/request-record.js';
import type { TestGateway } from '../../support/start-gateway.js';
import { postgresForThisFile } from '../../support/postgres-server.js';
import { createKey } from '../../support/virtual-keys.js';
import { admin, askPaid, queryPostgres, startGatewayOnPostgres } from '../postgres-helpers.js';
import { ADMIN_TOKEN } from '../scenario-helpers.js';

const { available, server } = postgresForThisFile();
const spillDirectory = mkdtempSync(join(tmpdir(), 'switchyard-pg-spill-'));
let gateway: TestGateway | undefined;
let url: string;

beforeAll(async () => {
  if (!available) return;
  url = await server().createDatabase('gateway');
  gateway = await startGatewayOnPostgres(url, spillDirectory);
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  rmSync(spillDirectory, { recursive: true, force: true });
});

it.skipIf(!available)('requests served with a key are listed by GET /admin/requests, their spend is summed, and both are rows in PostgreSQL', async () => {
  const { id: keyId, key } = await createKey(gateway!.url, ADMIN_TOKEN, { name: 'pg-team' });
  const requestIds: string[] = [];
  for (let index = 0; index < 3; index++) {
    const response = await askPaid(gateway!.url, key);
    expect(response.status).toBe(200);
    requestIds.push(response.headers.get('x-request-id')!);
  }
  expect(gateway!.mock.attemptsFor('gpt-paid')).toHaveLength(3);

  const listed = (await (await fetch(`${gateway!.url}/admin/requests?route=paid`, { headers: admin })).json()) as { data: RequestRecord[] };
  expect(listed.data.map((record) => record.id)).toEqual([...requestIds].reverse());
  expect(listed.data.every((record) => record.key_name === 'pg-team' && record.attempts.length === 1 && record.cost_usd! > 0)).toBe(true);
  const one = (await (await fetch(`${gateway!.url}/admin/requests/${requestIds[0]}`, { headers: admin })).json()) as RequestRecord;
  expect(one.served?.model).toBe('gpt-paid');

  const spend = (await (await fetch(`${gateway!.url}/admin/keys/${keyId}/spend`, { headers: admin })).json()) as { usd: number };
  const total = listed.data.reduce((sum, record) => sum + record.cost_usd!, 0);
  expect(spend.usd).toBeCloseTo(total, 6);

  const rows = await queryPostgres<{ request_id: string }>(url, 'SELECT request_id FROM spend WHERE key_id = $1 ORDER BY request_id', [keyId]);
  expect(rows.map((row) => row.request_id)).toEqual([...requestIds].sort());
  const stored = await queryPostgres<{ id: string }>(url, "SELECT id FROM requests WHERE route = 'paid' ORDER BY id");
  expect(stored.map((row) => row.id)).toEqual([...requestIds].sort());
});
