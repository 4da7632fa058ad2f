import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseSchema } from '../../src/store/schema.js';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { storeDatabase } from '../support/store-database.js';
import { adminCall, createTeam, createTeamKey, teamsConfig } from './team-calls.js';

const stores = bothStoresForThisFile('teams-crud');

const SEVEN_DAYS_S = 7 * 24 * 3600;

describe.each(stores)('teams through the admin API on a $name store', ({ skip, store }) => {
  let gateway: TestGateway;
  let db: Kysely<DatabaseSchema>;
  let url: string;

  beforeAll(async () => {
    if (skip) return;
    const storeLine = await store();
    gateway = await startGateway(teamsConfig(storeLine));
    url = gateway.url;
    db = storeDatabase(storeLine);
  });
  afterAll(async () => {
    await db?.destroy();
    await gateway?.close();
  });

  it.skipIf(skip)('makes a team from a name alone, every field shown with its default, and finds it by id or by name', async () => {
    const made = await adminCall(url, 'POST', '/admin/teams', { body: { name: 'Data Platform' } });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toEqual({
      id: expect.stringMatching(/^team_[0-9a-f]{16}$/),
      name: 'Data Platform',
      budget: null,
      limits: { rpm: null, tpm: null },
      routes: null,
      exploration: { max_ttl_s: SEVEN_DAYS_S, limits: { rpm: null, tpm: null }, budget: null },
      created_at: expect.any(String),
      updated_at: made.body.created_at,
    });
    expect((await adminCall(url, 'GET', `/admin/teams/${made.body.id as string}`)).body).toEqual(made.body);
    expect((await adminCall(url, 'GET', '/admin/teams/Data%20Platform')).body).toEqual(made.body);
    const listed = await adminCall(url, 'GET', '/admin/teams');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toContainEqual(made.body);
  });

  it.skipIf(skip)('makes a team with its budget, limits, route bounds and exploration policy as asked', async () => {
    const body = {
      name: 'search',
      budget: { usd: 250, period: 'month' },
      limits: { rpm: 600, tpm: 200_000 },
      routes: ['search', 'chat'],
      exploration: { max_ttl_s: 3600, limits: { rpm: 10 }, budget: { usd: 5, period: 'day' } },
    };
    const made = await adminCall(url, 'POST', '/admin/teams', { body });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ ...body, exploration: { max_ttl_s: 3600, limits: { rpm: 10, tpm: null }, budget: { usd: 5, period: 'day' } } });
  });

  it.skipIf(skip)('refuses a name taken already with 409, on a new team and on a rename', async () => {
    await createTeam(url, { name: 'payments' });
    const other = await createTeam(url, { name: 'billing' });
    const twice = await adminCall(url, 'POST', '/admin/teams', { body: { name: 'payments' } });
    expect(twice.status).toBe(409);
    expect(twice.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining('"payments"') });
    const renamed = await adminCall(url, 'PATCH', `/admin/teams/${other}`, { body: { name: 'payments' } });
    expect(renamed.status).toBe(409);
    expect((await adminCall(url, 'GET', `/admin/teams/${other}`)).body.name).toBe('billing');
  });

  it.skipIf(skip)('refuses a bad body with a 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'team_lookalike' }, 'name'],
      [{ name: 'a/b' }, 'name'],
      [{ name: 'x', budget: { usd: 10, period: 'week' } }, 'budget.period'],
      [{ name: 'x', budget: { usd: -1, period: 'day' } }, 'budget.usd'],
      [{ name: 'x', limits: { rpm: 0 } }, 'limits.rpm'],
      [{ name: 'x', limits: { tpm: 1.5 } }, 'limits.tpm'],
      [{ name: 'x', routes: [] }, 'routes'],
      [{ name: 'x', exploration: { max_ttl_s: 400 * 86_400 } }, 'exploration.max_ttl_s'],
      [{ name: 'x', exploration: { budget: { usd: 1 } } }, 'exploration.budget.period'],
    ];
    for (const [body, param] of cases) {
      const answer = await adminCall(url, 'POST', '/admin/teams', { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error, JSON.stringify(body)).toMatchObject({ code: 'invalid_request_error', param });
    }
    const team = await createTeam(url, { name: 'patched-badly' });
    const patch = await adminCall(url, 'PATCH', `/admin/teams/${team}`, { body: { limits: { rpm: 'many' } } });
    expect(patch.status).toBe(400);
    expect(patch.body.error?.param).toBe('limits.rpm');
  });

  it.skipIf(skip)('changes only what a PATCH names, merging limits and the exploration policy field by field, null clearing', async () => {
    const id = await createTeam(url, {
      name: 'research',
      budget: { usd: 100, period: 'month' },
      limits: { rpm: 60, tpm: 10_000 },
      routes: ['chat'],
      exploration: { max_ttl_s: 7200, limits: { rpm: 5, tpm: 500 } },
    });
    const patched = await adminCall(url, 'PATCH', `/admin/teams/${id}`, { body: { limits: { rpm: 120 }, exploration: { limits: { tpm: null } } } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'research',
      budget: { usd: 100, period: 'month' },
      limits: { rpm: 120, tpm: 10_000 },
      routes: ['chat'],
      exploration: { max_ttl_s: 7200, limits: { rpm: 5, tpm: null }, budget: null },
    });
    expect(Date.parse(patched.body.updated_at as string)).toBeGreaterThanOrEqual(Date.parse(patched.body.created_at as string));
    const cleared = await adminCall(url, 'PATCH', '/admin/teams/research', { body: { budget: null, routes: null, exploration: null, name: 'research-2' } });
    expect(cleared.body).toMatchObject({
      name: 'research-2',
      budget: null,
      limits: { rpm: 120, tpm: 10_000 },
      routes: null,
      exploration: { max_ttl_s: SEVEN_DAYS_S, limits: { rpm: null, tpm: null }, budget: null },
    });
    expect((await adminCall(url, 'GET', '/admin/teams/research-2')).body).toEqual(cleared.body);
    expect((await adminCall(url, 'GET', '/admin/teams/research')).status).toBe(404);
  });

  it.skipIf(skip)('refuses to delete a team while it has active keys, naming how many, and deletes it once they are revoked or expired', async () => {
    const id = await createTeam(url, { name: 'short-lived' });
    const kept = await createTeamKey(url, { name: 'kept', team: id });
    // Long enough to be active at the first DELETE on a loaded machine, short enough to wait for.
    const expiring = await createTeamKey(url, { name: 'expiring', team: 'short-lived', expires_at: new Date(Date.now() + 4_000).toISOString() });
    expect(expiring.team).toBe(id);
    const refused = await adminCall(url, 'DELETE', `/admin/teams/${id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining('2 active keys') });
    expect((await adminCall(url, 'DELETE', `/admin/keys/${kept.id}`)).status).toBe(200);
    // The other key is still active until its expiry passes: a lower bound, then a bounded wait.
    let deleted = await adminCall(url, 'DELETE', `/admin/teams/${id}`);
    for (let tries = 0; deleted.status === 409 && tries < 200; tries++) {
      expect(deleted.body.error?.message).toContain('1 active key');
      await new Promise((resolve) => setTimeout(resolve, 100));
      deleted = await adminCall(url, 'DELETE', `/admin/teams/${id}`);
    }
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ id, deleted: true });
    expect((await adminCall(url, 'GET', `/admin/teams/${id}`)).status).toBe(404);
    expect((await adminCall(url, 'DELETE', `/admin/teams/${id}`)).status).toBe(404);
    expect((await adminCall(url, 'GET', `/admin/teams/${id}/spend`)).status).toBe(404);
  });

  it.skipIf(skip)("answers a team's spend in its budget period, nothing spent yet", async () => {
    const id = await createTeam(url, { name: 'spendless', budget: { usd: 12.5, period: 'day' } });
    const spend = await adminCall(url, 'GET', '/admin/teams/spendless/spend');
    const midnight = new Date();
    midnight.setUTCHours(0, 0, 0, 0);
    expect(spend.body).toEqual({ team_id: id, usd: 0, reserved_usd: 0, budget_usd: 12.5, period: 'day', period_start: midnight.toISOString() });
  });

  it.skipIf(skip)('records every change in the audit trail in its own row: team.create after, team.update before and after, team.delete before', async () => {
    const id = await createTeam(url, { name: 'audited', limits: { rpm: 1 } });
    await adminCall(url, 'PATCH', `/admin/teams/${id}`, { body: { limits: { rpm: 2 } } });
    await adminCall(url, 'DELETE', `/admin/teams/${id}`);
    const rows = await db.selectFrom('audit').selectAll().where('target_id', '=', id).orderBy('seq').execute();
    expect(rows.map((row) => row.action)).toEqual(['team.create', 'team.update', 'team.delete']);
    const [created, updated, deleted] = rows.map((row) => ({
      actor: JSON.parse(row.actor_json) as unknown,
      before: row.before_json === null ? null : (JSON.parse(row.before_json) as { limits: unknown }),
      after: row.after_json === null ? null : (JSON.parse(row.after_json) as { limits: unknown }),
    }));
    expect(created).toMatchObject({ actor: { kind: 'token', id: 'admin.token', role: 'admin' }, before: null, after: { id, name: 'audited', limits: { rpm: 1, tpm: null } } });
    expect(updated).toMatchObject({ before: { limits: { rpm: 1 } }, after: { limits: { rpm: 2 } } });
    expect(deleted).toMatchObject({ before: { id, limits: { rpm: 2 } }, after: null });
    // A refused change writes nothing.
    const conflicted = await createTeam(url, { name: 'not-deleted' });
    await createTeamKey(url, { name: 'holds it', team: conflicted });
    await adminCall(url, 'DELETE', `/admin/teams/${conflicted}`);
    expect((await db.selectFrom('audit').select('action').where('target_id', '=', conflicted).execute()).map((row) => row.action)).toEqual(['team.create']);
  });
});
