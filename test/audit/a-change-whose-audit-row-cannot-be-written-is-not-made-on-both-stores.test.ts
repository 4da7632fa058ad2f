import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { createKey } from '../support/virtual-keys.js';
import { auditGatewayConfig, auditRows, rawSql, refuseAuditInserts, rowsOf } from './audit-helpers.js';

const ADMIN_TOKEN = 'audit-transaction-admin-token';
const stores = bothStoresForThisFile('audit_transaction');
const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

describe.each(stores)('on a $name store', ({ skip, store }) => {
  let gateway: TestGateway;
  let storeLine: string;

  beforeAll(async () => {
    if (skip) return;
    storeLine = await store();
    gateway = await startGateway(auditGatewayConfig(storeLine, ADMIN_TOKEN));
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const keysNamed = async (name: string) => (await rawSql<{ id: string; revoked_at: string | null }>(storeLine, `SELECT id, revoked_at FROM virtual_keys WHERE name = '${name}'`));
  const ask = (key: string) =>
    fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'support', messages: [{ role: 'user', content: 'hi' }] }),
      signal: AbortSignal.timeout(15_000),
    });

  it.skipIf(skip)('while the audit table refuses inserts, a key is neither created nor revoked, and each is an error; once it takes them again both work, each with its row', async () => {
    const standing = await createKey(gateway.url, ADMIN_TOKEN, { name: 'standing' });
    const { refuse, allow } = refuseAuditInserts(storeLine);
    for (const statement of refuse) await rawSql(storeLine, statement);
    try {
      const created = await fetch(`${gateway.url}/admin/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'never-made' }) });
      expect(created.status).toBe(503);
      expect(await created.json()).toMatchObject({ error: { code: 'gateway_unavailable' } });
      expect(await keysNamed('never-made')).toEqual([]);

      const revoked = await fetch(`${gateway.url}/admin/keys/${standing.id}`, { method: 'DELETE', headers: admin });
      expect(revoked.status).toBe(503);
      expect(await keysNamed('standing')).toEqual([{ id: standing.id, revoked_at: null }]);
      expect((await ask(standing.key)).status).toBe(200);
    } finally {
      for (const statement of allow) await rawSql(storeLine, statement);
    }

    const made = await createKey(gateway.url, ADMIN_TOKEN, { name: 'made-after' });
    expect((await fetch(`${gateway.url}/admin/keys/${standing.id}`, { method: 'DELETE', headers: admin })).status).toBe(200);
    expect((await ask(standing.key)).status).toBe(401);
    const rows = await auditRows(gateway.url, ADMIN_TOKEN);
    expect(rowsOf(rows, 'key.create').map((row) => row.target.id)).toEqual([made.id, standing.id]);
    expect(rowsOf(rows, 'key.revoke').map((row) => row.target.id)).toEqual([standing.id]);
    // Every row that was written is numbered without a gap: the refused ones took no seq.
    expect(rows.map((row) => row.seq)).toEqual([3, 2, 1]);
  });
});
