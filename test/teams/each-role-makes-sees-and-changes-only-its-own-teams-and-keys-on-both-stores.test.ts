import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { createToken } from '../support/admin-calls.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { adminCall, createTeam, createTeamKey, teamsConfig } from './team-calls.js';


const stores = bothStoresForThisFile('team-roles');

describe.each(stores)('roles and teams on a $name store', ({ skip, store }) => {
  let gateway: TestGateway;
  let url: string;
  const team = { alpha: '', beta: '' };
  const token = { auditor: '', alphaAdmin: '', alphaMember: '', betaAdmin: '' };
  const key = { alpha: '', beta: '', none: '', memberOwn: '' };
  let memberId: string;

  beforeAll(async () => {
    if (skip) return;
    const storeLine = await store();
    gateway = await startGateway(teamsConfig(storeLine));
    url = gateway.url;
    team.alpha = await createTeam(url, { name: 'alpha', exploration: { max_ttl_s: 3600, limits: { rpm: 5 } } });
    team.beta = await createTeam(url, { name: 'beta' });
    token.auditor = (await createToken(url, { name: 'on-call', role: 'auditor' })).token;
    token.alphaAdmin = (await createToken(url, { name: 'alpha lead', role: 'team_admin', team: team.alpha })).token;
    token.alphaMember = (await createToken(url, { name: 'alpha dev', role: 'member', team: team.alpha })).token;
    token.betaAdmin = (await createToken(url, { name: 'beta lead', role: 'team_admin', team: team.beta })).token;
    memberId = (await adminCall(url, 'GET', '/admin/me', { token: token.alphaMember })).body.id as string;
    key.alpha = (await createTeamKey(url, { name: 'alpha service', team: team.alpha })).id;
    key.beta = (await createTeamKey(url, { name: 'beta service', team: 'beta' })).id;
    key.none = (await createTeamKey(url, { name: 'no team' })).id;
    key.memberOwn = (await createTeamKey(url, { name: 'exploring', team: 'alpha', kind: 'exploration' }, token.alphaMember)).id;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const as = (secret: string) => ({ token: secret });

  it.skipIf(skip)('lists every team to admin and auditor, and only its own teams to a team_admin or member', async () => {
    const names = async (secret?: string) => ((await adminCall(url, 'GET', '/admin/teams', secret ? as(secret) : {})).body.data ?? []).map((listed) => listed.name);
    expect(await names()).toEqual(['alpha', 'beta']);
    expect(await names(token.auditor)).toEqual(['alpha', 'beta']);
    expect(await names(token.alphaAdmin)).toEqual(['alpha']);
    expect(await names(token.alphaMember)).toEqual(['alpha']);
    expect(await names(token.betaAdmin)).toEqual(['beta']);
  });

  it.skipIf(skip)("refuses a team and its spend to anyone without a role in it, with 403 permission_denied", async () => {
    for (const path of [`/admin/teams/${team.beta}`, '/admin/teams/beta/spend']) {
      for (const secret of [token.alphaAdmin, token.alphaMember]) {
        const answer = await adminCall(url, 'GET', path, as(secret));
        expect(answer.status, path).toBe(403);
        expect(answer.body.error?.code).toBe('permission_denied');
      }
      expect((await adminCall(url, 'GET', path, as(token.auditor))).status).toBe(200);
      expect((await adminCall(url, 'GET', path, as(token.betaAdmin))).status).toBe(200);
    }
    expect((await adminCall(url, 'GET', '/admin/teams/alpha', as(token.alphaMember))).status).toBe(200);
    expect((await adminCall(url, 'GET', '/admin/teams/alpha/spend', as(token.alphaMember))).status).toBe(200);
  });

  it.skipIf(skip)("lets a team_admin change its own team's exploration policy and nothing else", async () => {
    const own = await adminCall(url, 'PATCH', '/admin/teams/alpha', { ...as(token.alphaAdmin), body: { exploration: { max_ttl_s: 1800 } } });
    expect(own.status, own.text).toBe(200);
    expect(own.body.exploration).toEqual({ max_ttl_s: 1800, limits: { rpm: 5, tpm: null }, budget: null });
    for (const body of [{ budget: { usd: 1000, period: 'month' } }, { limits: { rpm: 1 } }, { name: 'alpha-prime' }, { routes: ['chat'], exploration: { max_ttl_s: 60 } }]) {
      const refused = await adminCall(url, 'PATCH', '/admin/teams/alpha', { ...as(token.alphaAdmin), body });
      expect(refused.status, JSON.stringify(body)).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'permission_denied', message: expect.stringContaining('"admin"') });
    }
    expect((await adminCall(url, 'PATCH', '/admin/teams/beta', { ...as(token.alphaAdmin), body: { exploration: { max_ttl_s: 60 } } })).status).toBe(403);
    expect((await adminCall(url, 'GET', '/admin/teams/alpha')).body).toMatchObject({ name: 'alpha', budget: null, routes: null, exploration: { max_ttl_s: 1800 } });
    // The door: making, changing and deleting teams are an admin's.
    expect((await adminCall(url, 'POST', '/admin/teams', { ...as(token.alphaAdmin), body: { name: 'mine' } })).status).toBe(403);
    expect((await adminCall(url, 'PATCH', '/admin/teams/alpha', { ...as(token.alphaMember), body: { exploration: { max_ttl_s: 60 } } })).status).toBe(403);
    expect((await adminCall(url, 'DELETE', '/admin/teams/alpha', as(token.alphaAdmin))).status).toBe(403);
  });

  it.skipIf(skip)("lets a team_admin make service keys in its teams only, and a member only its own exploration keys", async () => {
    const made = await adminCall(url, 'POST', '/admin/keys', { ...as(token.alphaAdmin), body: { name: 'alpha batch', team: 'alpha' } });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ team: team.alpha, kind: 'service', owner: null });
    const elsewhere = await adminCall(url, 'POST', '/admin/keys', { ...as(token.alphaAdmin), body: { name: 'x', team: 'beta' } });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.error?.code).toBe('permission_denied');
    const teamless = await adminCall(url, 'POST', '/admin/keys', { ...as(token.alphaAdmin), body: { name: 'x' } });
    expect(teamless.status).toBe(400);
    expect(teamless.body.error?.param).toBe('team');
    const unknown = await adminCall(url, 'POST', '/admin/keys', { body: { name: 'x', team: 'gamma' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ param: 'team', message: expect.stringContaining('"gamma"') });

    const service = await adminCall(url, 'POST', '/admin/keys', { ...as(token.alphaMember), body: { name: 'x', team: 'alpha' } });
    expect(service.status).toBe(403);
    expect(service.body.error?.message).toContain('"team_admin"');
    const exploring = await adminCall(url, 'POST', '/admin/keys', { ...as(token.alphaMember), body: { name: 'try', team: 'alpha', kind: 'exploration' } });
    expect(exploring.status, exploring.text).toBe(201);
    expect(exploring.body).toMatchObject({ team: team.alpha, kind: 'exploration', owner: memberId });
    expect((await adminCall(url, 'POST', '/admin/keys', { ...as(token.alphaMember), body: { name: 'x', team: 'beta', kind: 'exploration' } })).status).toBe(403);
    expect((await adminCall(url, 'POST', '/admin/keys', { ...as(token.auditor), body: { name: 'x', team: 'beta', kind: 'exploration' } })).status).toBe(403);
  });

  it.skipIf(skip)('lists every key to admin and auditor, its teams\' keys to a team_admin, and a member only its own exploration keys', async () => {
    const ids = async (secret?: string) => ((await adminCall(url, 'GET', '/admin/keys', secret ? as(secret) : {})).body.data ?? []).map((listed) => listed.id as string);
    const every = await ids();
    expect(every).toEqual(expect.arrayContaining([key.alpha, key.beta, key.none, key.memberOwn]));
    expect(await ids(token.auditor)).toEqual(every);
    const alphaAdmin = await ids(token.alphaAdmin);
    expect(alphaAdmin).toEqual(expect.arrayContaining([key.alpha, key.memberOwn]));
    expect(alphaAdmin).not.toContain(key.beta);
    expect(alphaAdmin).not.toContain(key.none);
    const member = (await adminCall(url, 'GET', '/admin/keys', as(token.alphaMember))).body.data ?? [];
    expect(member.length).toBeGreaterThan(0);
    expect(member.every((listed) => listed.kind === 'exploration' && listed.owner === memberId)).toBe(true);
    expect(member.map((listed) => listed.id)).toContain(key.memberOwn);
  });

  it.skipIf(skip)("reads a key's spend within the same bounds, the auditor every key's", async () => {
    const spend = async (id: string, secret: string) => (await adminCall(url, 'GET', `/admin/keys/${id}/spend`, as(secret))).status;
    expect([await spend(key.none, token.auditor), await spend(key.beta, token.auditor)]).toEqual([200, 200]);
    expect([await spend(key.alpha, token.alphaAdmin), await spend(key.beta, token.alphaAdmin), await spend(key.none, token.alphaAdmin)]).toEqual([200, 403, 403]);
    expect([await spend(key.memberOwn, token.alphaMember), await spend(key.alpha, token.alphaMember)]).toEqual([200, 403]);
  });

  it.skipIf(skip)('revokes within the same bounds: a team_admin its teams\' keys, a member its own exploration keys', async () => {
    const revoke = async (id: string, secret: string) => (await adminCall(url, 'DELETE', `/admin/keys/${id}`, as(secret))).status;
    expect(await revoke(key.beta, token.alphaAdmin)).toBe(403);
    expect(await revoke(key.none, token.alphaAdmin)).toBe(403);
    expect(await revoke(key.alpha, token.alphaMember)).toBe(403);
    expect(await revoke(key.memberOwn, token.alphaMember)).toBe(200);
    expect(await revoke(key.alpha, token.alphaAdmin)).toBe(200);
    expect(await revoke(key.beta, token.auditor)).toBe(403);
    const statuses = new Map(((await adminCall(url, 'GET', '/admin/keys')).body.data ?? []).map((listed) => [listed.id, listed.status]));
    expect([statuses.get(key.memberOwn), statuses.get(key.alpha), statuses.get(key.beta), statuses.get(key.none)]).toEqual(['revoked', 'revoked', 'active', 'active']);
  });
});
