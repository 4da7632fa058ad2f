import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainBreak } from '../../src/core/audit-chain.js';
import type { AuditRow } from '../../src/core/audit-entry.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { runCli } from '../support/cli-process.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { auditGatewayConfig, auditRows, rawSql } from './audit-helpers.js';

const ADMIN_TOKEN = 'audit-two-gateways-admin-token';
const stores = bothStoresForThisFile('audit_two_gateways');
/**
 * Keys each gateway is asked to make, all at once. Few enough that one gateway's burst on a shared
 * SQLite file ends within the store's 1 s bound on a loaded machine: SQLite's busy handler backs
 * off while the other process takes the lock again and again, and with 15 each one gateway once
 * got nothing but 503s (CI, Node 26), leaving nothing to show it appended.
 */
const KEYS_EACH = 6;

describe.each(stores)('on one $name store', ({ skip, store }) => {
  let gateways: TestGateway[] = [];
  let storeLine: string;

  beforeAll(async () => {
    if (skip) return;
    storeLine = await store();
    const config = auditGatewayConfig(storeLine, ADMIN_TOKEN);
    gateways = [await startGateway(config), await startGateway(config)];
  });
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
  });

  it.skipIf(skip)('keys made on both gateways at once are one key.create row each, numbered 1 to N without a gap, each chained to the one before', async () => {
    const answers = await Promise.all(
      gateways.flatMap((gateway, which) =>
        Array.from({ length: KEYS_EACH }, async (_, index) => {
          const response = await fetch(`${gateway.url}/admin/keys`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ name: `gateway-${which}-key-${index}` }),
            signal: AbortSignal.timeout(30_000),
          });
          return { status: response.status, body: (await response.json()) as { id?: string } };
        }),
      ),
    );
    // A store call that waits too long for the others' lock is a 503. Its change is then either not
    // made or made after the answer (the caller stopped waiting): either way with its row, or neither.
    expect(answers.every((answer) => answer.status === 201 || answer.status === 503)).toBe(true);
    const answered = answers.filter((answer) => answer.status === 201).map((answer) => answer.body.id!);
    // Both appended: the two halves of the answers are each gateway's.
    expect(answers.slice(0, KEYS_EACH).some((answer) => answer.status === 201)).toBe(true);
    expect(answers.slice(KEYS_EACH).some((answer) => answer.status === 201)).toBe(true);

    // A change made after its 503 is still under way for at most the store's bound on a statement.
    let made: string[] = [];
    let rows: AuditRow[] = [];
    await eventually(async () => {
      made = (await rawSql<{ id: string }>(storeLine, 'SELECT id FROM virtual_keys')).map((key) => key.id).sort();
      rows = await auditRows(gateways[1]!.url, ADMIN_TOKEN, 'after=0&limit=1000');
      return rows.length === made.length;
    }, 10_000, 'as many audit rows as keys');
    expect(made).toEqual(expect.arrayContaining(answered));
    expect(rows.map((row) => row.seq)).toEqual(Array.from({ length: made.length }, (_, index) => index + 1));
    expect(rows.map((row) => row.target.id).sort()).toEqual(made);
    expect(rows.map((row, index) => chainBreak(rows[index - 1], row)).filter(Boolean)).toEqual([]);

    const verified = await runCli(['audit', 'verify', '--url', gateways[0]!.url, '--token', ADMIN_TOKEN]);
    expect(verified.stdout).toContain(`verified ${made.length} audit rows, seq 1 to ${made.length}: the chain is unbroken`);
    expect(verified.code).toBe(0);
  });
});
