import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainBreak } from '../../src/core/audit-chain.js';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { runCli } from '../support/cli-process.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { keysAuth } from '../support/virtual-keys.js';
import { auditRows, rawSql } from './audit-helpers.js';

const ADMIN_TOKEN = 'audit-two-gateways-admin-token';
const stores = bothStoresForThisFile('audit_two_gateways');
/** Keys each gateway is asked to make, all at once. */
const KEYS_EACH = 15;

describe.each(stores)('on one $name store', ({ skip, store }) => {
  let gateways: TestGateway[] = [];
  let storeLine: string;

  beforeAll(async () => {
    if (skip) return;
    storeLine = await store();
    const config = `
${storeLine}
${keysAuth(ADMIN_TOKEN)}
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  support: { targets: [{ connection: mock-openai, model: gpt-support }] }
`;
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
    // A file store's writer waits only briefly for the other's lock: a change that could not get it
    // is a 503 and is not made. Whatever was answered 201 was made, and audited, once.
    expect(answers.every((answer) => answer.status === 201 || answer.status === 503)).toBe(true);
    const made = answers.filter((answer) => answer.status === 201).map((answer) => answer.body.id!);
    // Both appended: the two halves of the answers are each gateway's.
    expect(answers.slice(0, KEYS_EACH).some((answer) => answer.status === 201)).toBe(true);
    expect(answers.slice(KEYS_EACH).some((answer) => answer.status === 201)).toBe(true);

    const rows = await auditRows(gateways[1]!.url, ADMIN_TOKEN, 'after=0&limit=1000');
    expect(rows.map((row) => row.seq)).toEqual(Array.from({ length: made.length }, (_, index) => index + 1));
    expect(rows.map((row) => row.target.id).sort()).toEqual([...made].sort());
    expect(rows.map((row, index) => chainBreak(rows[index - 1], row)).filter(Boolean)).toEqual([]);
    const stored = await rawSql<{ id: string }>(storeLine, 'SELECT id FROM virtual_keys');
    expect(stored.map((key) => key.id).sort()).toEqual([...made].sort());

    const verified = await runCli(['audit', 'verify', '--url', gateways[0]!.url, '--token', ADMIN_TOKEN]);
    expect(verified.stdout).toContain(`verified ${made.length} audit rows, seq 1 to ${made.length}: the chain is unbroken`);
    expect(verified.code).toBe(0);
  });
});
