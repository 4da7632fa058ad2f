import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRow } from '../../src/core/audit-entry.js';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { runCli } from '../support/cli-process.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { createKey } from '../support/virtual-keys.js';
import { auditGatewayConfig, auditRows, rawSql } from './audit-helpers.js';

const ADMIN_TOKEN = 'audit-verify-admin-token';
const stores = bothStoresForThisFile('audit_verify');

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

  const audit = (...args: string[]) => runCli(['audit', ...args, '--url', gateway.url, '--token', ADMIN_TOKEN]);

  it.skipIf(skip)('verify passes an untouched trail, export prints it oldest first, list newest first; a row edited by hand is named with exit 1, and so is the row after a deleted one', async () => {
    const keys = [];
    for (const name of ['first', 'second', 'third', 'fourth']) keys.push(await createKey(gateway.url, ADMIN_TOKEN, { name }));
    expect((await fetch(`${gateway.url}/admin/keys/${keys[0]!.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(200);

    const verified = await audit('verify');
    expect(verified.stderr).toBe('');
    expect(verified.stdout).toContain('verified 5 audit rows, seq 1 to 5: the chain is unbroken');
    expect(verified.code).toBe(0);

    const exported = await audit('export', '--format', 'jsonl');
    expect(exported.code).toBe(0);
    const lines = exported.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as AuditRow);
    expect(lines).toEqual((await auditRows(gateway.url, ADMIN_TOKEN)).reverse());
    expect(lines.map((row) => row.action)).toEqual(['key.create', 'key.create', 'key.create', 'key.create', 'key.revoke']);

    const listed = await audit('list', '--action', 'key.create', '--limit', '2');
    expect(listed.code).toBe(0);
    const listedRows = listed.stdout.trimEnd().split('\n').slice(2);
    expect(listedRows).toHaveLength(2);
    expect(listedRows[0]).toMatch(new RegExp(`^4 .*admin\\.token +admin +key\\.create +key ${keys[3]!.id} `));
    expect(listedRows[1]).toMatch(new RegExp(`^3 .*key ${keys[2]!.id} `));
    const refused = await audit('list', '--action', 'key.destroy');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('"action" must be one of');

    // Someone with the database's password makes a key look as if it had been made with a bigger limit.
    const [original] = await rawSql<{ after_json: string }>(storeLine, 'SELECT after_json FROM audit WHERE seq = 3');
    const forged = JSON.stringify({ ...(JSON.parse(original!.after_json) as object), limits: { rpm: 1_000_000, tpm: null } });
    await rawSql(storeLine, `UPDATE audit SET after_json = '${forged}' WHERE seq = 3`);
    const edited = await audit('verify');
    expect(edited.code).toBe(1);
    expect(edited.stderr).toContain('the audit chain breaks at seq 3 (key.create, ');
    expect(edited.stderr).toContain('the row was changed after it was written');
    expect(edited.stderr).toContain('the 2 rows before it (seq 1 to 2) are unbroken');

    await rawSql(storeLine, `UPDATE audit SET after_json = '${original!.after_json}' WHERE seq = 3`);
    expect((await audit('verify')).code).toBe(0);

    await rawSql(storeLine, 'DELETE FROM audit WHERE seq = 2');
    const deleted = await audit('verify');
    expect(deleted.code).toBe(1);
    expect(deleted.stderr).toContain('the audit chain breaks at seq 3 (key.create, ');
    expect(deleted.stderr).toContain('seq 2 is missing between seq 1 and it: deleted from the trail');
  });

  it.skipIf(skip)('a caller the gateway refuses gets exit 2 from verify, naming why', async () => {
    const refused = await runCli(['audit', 'verify', '--url', gateway.url, '--token', 'not-the-admin-token']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('the gateway refused the admin token');
  });
});
