import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminStatsResponse, RequestRecord } from '../../src/admin/admin-api-types.js';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { createToken } from '../support/admin-calls.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { adminCall, chat, createTeam, createTeamKey, teamsConfig } from './team-calls.js';


const stores = bothStoresForThisFile('team-stats');

describe.each(stores)("a team's spend, requests and stats on a $name store", ({ skip, store }) => {
  let gateway: TestGateway;
  let url: string;
  const team = { alpha: '', beta: '' };
  const key: Record<'a1' | 'a2' | 'b1' | 'none', { id: string; key: string }> = {} as never;
  let alphaMember: string;

  const stats = async (query = '', token?: string) => {
    const answer = await adminCall(url, 'GET', `/admin/stats${query}`, token ? { token } : {});
    expect(answer.status, answer.text).toBe(200);
    return answer.body as unknown as AdminStatsResponse;
  };
  const records = async (query = '', token?: string) => {
    const answer = await adminCall(url, 'GET', `/admin/requests${query}`, token ? { token } : {});
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data as unknown as RequestRecord[];
  };
  const usd = async (path: string) => (await adminCall(url, 'GET', path)).body.usd as number;

  beforeAll(async () => {
    if (skip) return;
    const storeLine = await store();
    gateway = await startGateway(teamsConfig(storeLine));
    url = gateway.url;
    team.alpha = await createTeam(url, { name: 'alpha', budget: { usd: 100, period: 'month' } });
    team.beta = await createTeam(url, { name: 'beta' });
    key.a1 = await createTeamKey(url, { name: 'alpha-one', team: 'alpha' });
    key.a2 = await createTeamKey(url, { name: 'alpha-two', team: 'alpha' });
    key.b1 = await createTeamKey(url, { name: 'beta-one', team: 'beta' });
    key.none = await createTeamKey(url, { name: 'teamless' });
    alphaMember = (await createToken(url, { name: 'alpha dev', role: 'member', team: team.alpha })).token;
    const sent = [
      await chat(url, key.a1.key),
      await chat(url, key.a1.key, 'search'),
      await chat(url, key.a2.key),
      await chat(url, key.a1.key, 'no-such-route'),
      await chat(url, key.b1.key),
      await chat(url, key.b1.key),
      await chat(url, key.none.key),
      await chat(url, 'sk-sy-not-a-key'),
    ];
    expect(sent).toEqual([200, 200, 200, 404, 200, 200, 200, 401]);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it.skipIf(skip)("answers a team's spend as its keys' spend, in its budget period", async () => {
    const alpha = (await adminCall(url, 'GET', '/admin/teams/alpha/spend')).body;
    expect(alpha).toMatchObject({ team_id: team.alpha, budget_usd: 100, period: 'month', reserved_usd: 0 });
    const alphaKeys = (await usd(`/admin/keys/${key.a1.id}/spend`)) + (await usd(`/admin/keys/${key.a2.id}/spend`));
    expect(alphaKeys).toBeGreaterThan(0);
    expect(alpha.usd).toBeCloseTo(alphaKeys, 9);
    expect(await usd('/admin/teams/beta/spend')).toBeCloseTo(await usd(`/admin/keys/${key.b1.id}/spend`), 9);
  });

  it.skipIf(skip)('keeps the team on every record of its keys, refused ones included, and lists them under team=', async () => {
    const alpha = await records('?team=alpha');
    expect(alpha).toHaveLength(4);
    expect(alpha.every((record) => record.team === team.alpha)).toBe(true);
    expect(alpha.map((record) => record.status).sort()).toEqual(['ok', 'ok', 'ok', 'rejected']);
    expect((await records(`?team=${team.beta}`)).map((record) => record.key_name)).toEqual(['beta-one', 'beta-one']);
    const all = await records();
    expect(all.filter((record) => record.team === null).map((record) => record.http_status).sort()).toEqual([200, 401]);
    const unknown = await adminCall(url, 'GET', '/admin/requests?team=gamma');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error?.param).toBe('team');
  });

  it.skipIf(skip)('counts each team in by_team, adding up with the requests of no team to the totals', async () => {
    const all = await stats();
    expect(all.teams).toBeNull();
    expect(all.by_team.map(({ team: id, name, requests }) => ({ id, name, requests }))).toEqual([
      { id: team.alpha, name: 'alpha', requests: 4 },
      { id: team.beta, name: 'beta', requests: 2 },
    ]);
    const teamless = (await records()).filter((record) => record.team === null);
    expect(all.by_team.reduce((sum, row) => sum + row.requests, 0) + teamless.length).toBe(all.totals.requests);
    const teamlessCost = teamless.reduce((sum, record) => sum + (record.cost_usd ?? 0), 0);
    expect(all.by_team.reduce((sum, row) => sum + row.spend_usd, 0) + teamlessCost).toBeCloseTo(all.totals.spend_usd, 9);
    const alpha = all.by_team[0]!;
    expect(alpha.spend_usd).toBeCloseTo(await usd('/admin/teams/alpha/spend'), 9);
    expect(alpha.series).toHaveLength(all.data.length);
    expect(alpha.series.reduce((sum, point) => sum + point.spend_usd, 0)).toBeCloseTo(alpha.spend_usd, 9);
    expect(alpha.tokens.input).toBeGreaterThan(0);
  });

  it.skipIf(skip)("narrows the buckets, totals, routes, keys and teams to one team's requests under team=, by the minute and by 5 minutes", async () => {
    for (const bucket of ['60', '300']) {
      const alpha = await stats(`?team=alpha&bucket_s=${bucket}`);
      expect(alpha.teams).toEqual([team.alpha]);
      expect(alpha.totals.requests).toBe(4);
      expect(alpha.totals.outcomes.served_first_try).toBe(3);
      expect(alpha.totals.outcomes.refused.bad_request).toBe(1);
      expect(alpha.data.reduce((sum, point) => sum + point.requests, 0)).toBe(4);
      expect(alpha.data.reduce((sum, point) => sum + point.spend_usd, 0)).toBeCloseTo(await usd('/admin/teams/alpha/spend'), 9);
      expect(alpha.by_team.map((row) => row.team)).toEqual([team.alpha]);
      expect(alpha.by_key.map((row) => [row.key_name, row.requests])).toEqual([
        ['alpha-one', 3],
        ['alpha-two', 1],
      ]);
      expect(alpha.by_route.map((row) => [row.route, row.requests])).toEqual([
        ['chat', 2],
        [null, 1],
        ['search', 1],
      ]);
    }
  });

  it.skipIf(skip)("shows a member its teams' requests and figures only, and refuses another team's with 403", async () => {
    const listed = await records('', alphaMember);
    expect(listed).toHaveLength(4);
    expect(listed.every((record) => record.team === team.alpha)).toBe(true);
    expect((await adminCall(url, 'GET', '/admin/requests?team=beta', { token: alphaMember })).status).toBe(403);
    const all = await records();
    const betaRecord = all.find((record) => record.team === team.beta)!;
    const teamlessRecord = all.find((record) => record.team === null)!;
    const denied = await adminCall(url, 'GET', `/admin/requests/${betaRecord.id}`, { token: alphaMember });
    expect(denied.status).toBe(403);
    expect(denied.body.error?.code).toBe('permission_denied');
    expect((await adminCall(url, 'GET', `/admin/requests/${teamlessRecord.id}`, { token: alphaMember })).status).toBe(403);
    expect((await adminCall(url, 'GET', `/admin/requests/${listed[0]!.id}`, { token: alphaMember })).status).toBe(200);

    const own = await stats('', alphaMember);
    expect(own.teams).toEqual([team.alpha]);
    expect(own.totals.requests).toBe(4);
    expect(own.by_team.map((row) => row.team)).toEqual([team.alpha]);
    expect(own.by_key.map((row) => row.key_name).sort()).toEqual(['alpha-one', 'alpha-two']);
    expect((await adminCall(url, 'GET', `/admin/stats?team=${team.beta}`, { token: alphaMember })).status).toBe(403);
  });
});
