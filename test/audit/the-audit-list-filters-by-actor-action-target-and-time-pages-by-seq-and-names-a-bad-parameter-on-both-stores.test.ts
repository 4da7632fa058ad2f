import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRow } from '../../src/core/audit-entry.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { createKey, keysAuth, type CreatedKey } from '../support/virtual-keys.js';
import { auditRows } from './audit-helpers.js';

const ADMIN_TOKEN = 'audit-list-admin-token';
const stores = bothStoresForThisFile('audit_list');

const config = (store: string, retries: number) => `
${store}
${keysAuth(ADMIN_TOKEN)}
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  support: { retries: ${retries}, targets: [{ connection: mock-openai, model: gpt-support }] }
`;

describe.each(stores)('on a $name store', ({ skip, store }) => {
  let gateway: TestGateway;
  let keys: CreatedKey[] = [];
  let all: AuditRow[];
  /** A time between the third and fourth rows. */
  let middle: string;

  beforeAll(async () => {
    if (skip) return;
    const storeLine = await store();
    gateway = await startGateway(config(storeLine, 1));
    keys = [await createKey(gateway.url, ADMIN_TOKEN, { name: 'one' }), await createKey(gateway.url, ADMIN_TOKEN, { name: 'two' })];
    gateway.writeConfig(config(storeLine, 2));
    gateway.configSource.reload();
    await eventually(async () => (await auditRows(gateway.url, ADMIN_TOKEN)).length === 3, 10_000, 'the reload row');
    // Rows are stamped to the millisecond: the next one is made a millisecond later at least.
    const before = Date.now();
    await eventually(() => Date.now() > before + 1, 1_000, 'the clock to move on');
    middle = new Date(Date.now()).toISOString();
    await eventually(() => Date.now() > Date.parse(middle) + 1, 1_000, 'the clock to move on');
    await fetch(`${gateway.url}/admin/keys/${keys[0]!.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    keys.push(await createKey(gateway.url, ADMIN_TOKEN, { name: 'three' }));
    all = await auditRows(gateway.url, ADMIN_TOKEN);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const seqsOf = async (query: string) => (await auditRows(gateway.url, ADMIN_TOKEN, query)).map((row) => row.seq);

  it.skipIf(skip)('lists every row newest first, and each filter narrows to its rows', async () => {
    expect(all.map((row) => [row.seq, row.action])).toEqual([
      [5, 'key.create'],
      [4, 'key.revoke'],
      [3, 'config.reload'],
      [2, 'key.create'],
      [1, 'key.create'],
    ]);
    expect(await seqsOf('action=key.create')).toEqual([5, 2, 1]);
    expect(await seqsOf(`target=${keys[0]!.id}`)).toEqual([4, 1]);
    expect(await seqsOf('actor=gateway')).toEqual([3]);
    expect(await seqsOf('actor=admin.token&action=key.revoke')).toEqual([4]);
    expect(await seqsOf(`since=${encodeURIComponent(middle)}`)).toEqual([5, 4]);
    expect(await seqsOf(`until=${encodeURIComponent(middle)}`)).toEqual([3, 2, 1]);
    expect(await seqsOf(`since=${encodeURIComponent(all[4]!.at)}&until=${encodeURIComponent(middle)}&action=key.create`)).toEqual([2, 1]);
    expect(await seqsOf('actor=nobody')).toEqual([]);
  });

  it.skipIf(skip)('pages back with limit and before, and reads the trail oldest first with after', async () => {
    expect(await seqsOf('limit=2')).toEqual([5, 4]);
    expect(await seqsOf('limit=2&before=4')).toEqual([3, 2]);
    expect(await seqsOf('limit=2&before=2')).toEqual([1]);
    expect(await seqsOf('after=0&limit=3')).toEqual([1, 2, 3]);
    expect(await seqsOf('after=3')).toEqual([4, 5]);
    expect(await seqsOf('after=1&before=5')).toEqual([2, 3, 4]);
  });

  it.skipIf(skip)('a bad or unknown parameter is a 400 naming it; no admin token is a 401', async () => {
    for (const [query, param] of [
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=ten', 'limit'],
      ['action=key.destroy', 'action'],
      ['before=abc', 'before'],
      ['before=0', 'before'],
      ['after=-1', 'after'],
      ['since=yesterday', 'since'],
      ['until=2030-13-45', 'until'],
      ['actor=', 'actor'],
      ['target=', 'target'],
      ['team=platform', 'team'],
      ['action=key.create&action=key.revoke', 'action'],
    ] as const) {
      const response = await fetch(`${gateway.url}/admin/audit?${query}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(response.status, query).toBe(400);
      expect(await response.json(), query).toMatchObject({ error: { type: 'invalid_request_error', param } });
    }
    expect((await fetch(`${gateway.url}/admin/audit`)).status).toBe(401);
  });
});
