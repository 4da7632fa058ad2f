import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/admin/admin-api-types.js';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { storeDatabase } from '../support/store-database.js';
import { storeBeforeTeams, type KeyBeforeTeams } from './store-before-teams.js';
import { adminCall, chat, createTeam, createTeamKey, teamsConfig } from './team-calls.js';

const stores = bothStoresForThisFile('before-teams');

describe.each(stores)('a $name store made before teams, upgraded at start', ({ skip, store }) => {
  let gateway: TestGateway;
  let url: string;
  let keys: KeyBeforeTeams[];
  let records: RequestRecord[];

  beforeAll(async () => {
    if (skip) return;
    const storeLine = await store();
    const db = storeDatabase(storeLine);
    try {
      ({ keys, records } = await storeBeforeTeams(db));
    } finally {
      await db.destroy();
    }
    gateway = await startGateway(teamsConfig(storeLine));
    url = gateway.url;
  });
  afterAll(() => gateway?.close());

  it.skipIf(skip)('keeps every key as a service key of no team, with its fields, and each still authenticates with its secret', async () => {
    const listed = (await adminCall(url, 'GET', '/admin/keys')).body.data ?? [];
    for (const key of keys) {
      expect(listed.find((entry) => entry.id === key.id)).toMatchObject({
        name: key.name,
        key_prefix: key.secret.slice(0, 10),
        routes: key.routes,
        direct: key.direct,
        budget: key.budget,
        limits: key.limits,
        expires_at: key.expires_at,
        revoked_at: null,
        status: 'active',
        kind: 'service',
        team: null,
        owner: null,
      });
      expect(await chat(url, key.secret), key.name).toBe(200);
    }
  });

  it.skipIf(skip)("keeps every record, readable by id and listed by its key's name, of no team", async () => {
    for (const record of records) {
      const read = await adminCall(url, 'GET', `/admin/requests/${record.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ id: record.id, key_name: record.key_name, team: null, cost_usd: record.cost_usd });
    }
    const listed = (await adminCall(url, 'GET', `/admin/requests?key=${encodeURIComponent(keys[0]!.name)}&limit=1000`)).body.data ?? [];
    expect(listed.map((record) => record.id)).toEqual(expect.arrayContaining(records.filter((record) => record.key_name === keys[0]!.name).map((record) => record.id)));
  });

  it.skipIf(skip)("keeps every spend row: each key's spend is what it spent before and what it spent since", async () => {
    const before = new Set(records.map((record) => record.id));
    for (const key of keys) {
      const since = ((await adminCall(url, 'GET', `/admin/requests?key=${encodeURIComponent(key.name)}`)).body.data ?? []).filter((record) => !before.has(record.id as string));
      expect(since.length, key.name).toBeGreaterThan(0);
      const sinceUsd = since.reduce((sum, record) => sum + ((record.cost_usd as number | null) ?? 0), 0);
      const spend = (await adminCall(url, 'GET', `/admin/keys/${key.id}/spend`)).body;
      expect(spend.usd as number, key.name).toBeCloseTo(key.spentMicros / 1_000_000 + sinceUsd, 9);
    }
  });

  it.skipIf(skip)('takes teams, team keys and their records at once', async () => {
    const team = await createTeam(url, { name: 'after-upgrade' });
    const key = await createTeamKey(url, { name: 'new', team });
    expect(await chat(url, key.key)).toBe(200);
    const listed = (await adminCall(url, 'GET', `/admin/requests?team=${team}`)).body.data ?? [];
    expect(listed.map((record) => [record.key_name, record.team])).toEqual([['new', team]]);
    expect((await adminCall(url, 'GET', '/admin/teams/after-upgrade/spend')).body.usd).toBeGreaterThan(0);
  });
});
