import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/core/audit-entry.js';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { runCli } from '../support/cli-process.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { createKey } from '../support/virtual-keys.js';
import { auditGatewayConfig, auditRows, openStoreOf } from './audit-helpers.js';

const ADMIN_TOKEN = 'audit-retention-admin-token';
const DAY_MS = 86_400_000;
const stores = bothStoresForThisFile('audit_retention');

/**
 * A trail left by an earlier run, by age in days: five rows past the default retention (400
 * days), two within it, then one past it again — a row spilled long ago and replayed late.
 */
const AGES = [500, 480, 460, 440, 420, 10, 5, 450];

async function seedTrail(storeLine: string): Promise<void> {
  const { db, writes } = await openStoreOf(storeLine);
  try {
    for (const [index, days] of AGES.entries()) {
      const entry: AuditEntry = {
        id: `aud_seeded_${index}`,
        at: new Date(Date.now() - days * DAY_MS).toISOString(),
        actor: { kind: 'token', id: 'admin.token', name: 'admin.token', role: 'admin' },
        action: 'key.revoke',
        target: { kind: 'key', id: `key_seeded_${index}` },
        before: { status: 'active' },
        after: { status: 'revoked' },
        request_id: `req_seeded_${index}`,
        source_ip: '127.0.0.1',
      };
      await writes.audited({ statements: [], entry });
    }
  } finally {
    await writes.close();
    await db.destroy();
  }
}

describe.each(stores)('on a $name store', ({ skip, store }) => {
  let gateway: TestGateway;

  beforeAll(async () => {
    if (skip) return;
    const storeLine = await store();
    await seedTrail(storeLine);
    gateway = await startGateway(auditGatewayConfig(storeLine, ADMIN_TOKEN));
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const verify = () => runCli(['audit', 'verify', '--url', gateway.url, '--token', ADMIN_TOKEN]);

  it.skipIf(skip)('rows older than audit.retention_days (400 by default) before the first kept one are pruned; verify then starts there, taking its prev_hash as given, and new rows chain on', async () => {
    await gateway.app.auditPruner.whenCaughtUp();
    expect((await auditRows(gateway.url, ADMIN_TOKEN, 'after=0')).map((row) => row.seq)).toEqual([6, 7, 8]);

    const pruned = await verify();
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toContain('verified 3 audit rows, seq 6 to 8: the chain is unbroken');
    expect(pruned.stdout).toContain('it starts at seq 6 (');
    expect(pruned.stdout).toContain('the rows before it were pruned (audit.retention_days), so its prev_hash is taken as given');

    const key = await createKey(gateway.url, ADMIN_TOKEN, { name: 'after-the-pruning' });
    const [newest] = await auditRows(gateway.url, ADMIN_TOKEN, 'limit=1');
    expect(newest).toMatchObject({ seq: 9, action: 'key.create', target: { id: key.id } });
    const extended = await verify();
    expect(extended.stdout).toContain('verified 4 audit rows, seq 6 to 9: the chain is unbroken');
    expect(extended.code).toBe(0);
  });
});
