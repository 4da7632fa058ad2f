import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseSchema } from '../../src/store/schema.js';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { storeDatabase } from '../support/store-database.js';
import { createTeam } from '../support/admin-calls.js';
import { keysAuth } from '../support/virtual-keys.js';
import { ADMIN_TOKEN, adminCall, createToken } from './admin-calls.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const ROUTES = `
connections:
  mock: { provider: mock }
routes:
  r: { targets: [{ connection: mock, model: m }] }
`;

describe.each(bothStoresForThisFile('admin-tokens'))('admin API tokens on the $name store', ({ skip, store }) => {
  // Two replicas on one store: a token is judged by the store on every request, so a revocation holds on both at once.
  let a: TestGateway;
  let b: TestGateway;
  let db: Kysely<DatabaseSchema>;
  let teamA: string;
  let storeLine: string;

  beforeAll(async () => {
    if (skip) return;
    storeLine = await store();
    a = await startGateway(`${storeLine}\n${keysAuth(ADMIN_TOKEN)}\n${ROUTES}`);
    b = await startGateway(`${storeLine}\n${keysAuth(ADMIN_TOKEN)}\n${ROUTES}`);
    db = storeDatabase(storeLine);
    teamA = await createTeam(a.url, { name: 'payments' });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await db?.destroy();
  });

  it.skipIf(skip)('a token of each role is shown once, with its team as an id whether named by id or name, and only its hash is stored', async () => {
    const admin = await createToken(a.url, { name: 'platform ci', role: 'admin' });
    expect(admin).toEqual({ id: expect.stringMatching(/^tok_[0-9a-f]{16}$/), token: expect.stringMatching(/^sy-admin-[A-Za-z0-9_-]{43}$/), name: 'platform ci', role: 'admin', team: null, expires_at: null });
    const teamAdmin = await createToken(a.url, { name: 'payments lead', role: 'team_admin', team: 'payments' });
    const member = await createToken(a.url, { name: 'payments dev', role: 'member', team: teamA });
    const auditor = await createToken(a.url, { name: 'on-call', role: 'auditor', expires_at: '2999-01-01T00:00:00+01:00' });
    expect([teamAdmin.team, member.team, auditor.team]).toEqual([teamA, teamA, null]);
    expect(auditor.expires_at).toBe('2998-12-31T23:00:00.000Z');
    const created = [admin, teamAdmin, member, auditor];

    const listed = await adminCall(b.url, 'GET', '/admin/tokens');
    expect(listed.status).toBe(200);
    for (const token of created) {
      expect(listed.text).not.toContain(token.token);
      expect(listed.text).not.toContain(sha256(token.token));
      expect((listed.body.data as unknown[]).find((view) => (view as { id: string }).id === token.id)).toEqual({
        id: token.id,
        name: token.name,
        token_prefix: token.token.slice(0, 13),
        role: token.role,
        team: token.team,
        expires_at: token.expires_at,
        created_at: expect.any(String),
        revoked_at: null,
        status: 'active',
      });
    }

    const rows = await db.selectFrom('admin_tokens').selectAll().execute();
    const audit = await db.selectFrom('audit').selectAll().where('action', '=', 'token.create').execute();
    for (const token of created) {
      expect(rows.find((row) => row.id === token.id)?.token_hash).toBe(sha256(token.token));
      expect(JSON.stringify(rows)).not.toContain(token.token);
      // The trail says who made which token, and holds neither its secret nor the hash.
      const row = audit.find((each) => each.target_id === token.id);
      expect(JSON.parse(row!.actor_json)).toMatchObject({ kind: 'token', id: 'admin.token', role: 'admin' });
      expect(JSON.parse(row!.after_json!)).toMatchObject({ id: token.id, role: token.role, team: token.team, status: 'active' });
      expect(JSON.stringify(audit)).not.toContain(token.token);
      expect(JSON.stringify(audit)).not.toContain(sha256(token.token));
    }
  });

  it.skipIf(skip)('a token acts as its role and team, and is refused what its role may not do with a 403 naming the role needed', async () => {
    const teamAdmin = await createToken(a.url, { name: 'lead', role: 'team_admin', team: teamA });
    const me = await adminCall(b.url, 'GET', '/admin/me', { token: teamAdmin.token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ kind: 'token', id: teamAdmin.id, name: 'lead', role: 'team_admin', global_role: null, teams: [{ team: teamA, role: 'team_admin' }] });
    expect(me.body.allowed).toContain('POST /admin/keys/:id/rotate');
    expect(me.body.allowed).not.toContain('GET /admin/tokens');

    const auditor = await createToken(a.url, { name: 'reader', role: 'auditor' });
    expect((await adminCall(a.url, 'GET', '/admin/tokens', { token: auditor.token })).status).toBe(200);
    const refused = await adminCall(a.url, 'POST', '/admin/tokens', { token: auditor.token, body: { name: 'escalate', role: 'admin' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'permission_denied', message: expect.stringContaining('the role "admin"') });

    const admin = await createToken(a.url, { name: 'automation', role: 'admin' });
    const made = await adminCall(b.url, 'POST', '/admin/tokens', { token: admin.token, body: { name: 'made by a token', role: 'member', team: teamA } });
    expect(made.status).toBe(201);
    const audit = await db.selectFrom('audit').select(['actor_json']).where('target_id', '=', made.body.id as string).executeTakeFirstOrThrow();
    expect(JSON.parse(audit.actor_json)).toEqual({ kind: 'token', id: admin.id, name: 'automation', role: 'admin' });
  });

  it.skipIf(skip)('a bad body is a 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{}, 'name'],
      [{ name: 'x' }, 'role'],
      [{ name: 'x', role: 'owner' }, 'role'],
      [{ name: 'x', role: 'member' }, 'team'],
      [{ name: 'x', role: 'team_admin', team: null }, 'team'],
      [{ name: 'x', role: 'admin', team: teamA }, 'team'],
      [{ name: 'x', role: 'member', team: 'no-such-team' }, 'team'],
      [{ name: 'x', role: 'auditor', expires_at: '2000-01-01T00:00:00Z' }, 'expires_at'],
      [{ name: 'x', role: 'auditor', expires_at: 'tomorrow' }, 'expires_at'],
      [{ name: 'x', role: 'auditor', scope: 'everything' }, 'scope'],
    ];
    for (const [body, param] of cases) {
      const answer = await adminCall(a.url, 'POST', '/admin/tokens', { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error, JSON.stringify(body)).toMatchObject({ code: 'invalid_request_error', param, message: expect.stringContaining(param) });
    }
    const notJson = await adminCall(a.url, 'POST', '/admin/tokens', { body: '{"name":' });
    expect(notJson.status).toBe(400);
  });

  it.skipIf(skip)('a revoked token is refused from its next request on either replica, as is an expired one; both stay listed with their status', async () => {
    const doomed = await createToken(a.url, { name: 'leaked', role: 'auditor' });
    expect((await adminCall(a.url, 'GET', '/admin/health', { token: doomed.token })).status).toBe(200);
    expect((await adminCall(b.url, 'GET', '/admin/health', { token: doomed.token })).status).toBe(200);

    expect((await adminCall(a.url, 'DELETE', `/admin/tokens/${doomed.id}`)).body).toEqual({ id: doomed.id, revoked: true });
    for (const replica of [b, a]) {
      const refused = await adminCall(replica.url, 'GET', '/admin/health', { token: doomed.token });
      expect(refused.status).toBe(401);
      expect(refused.body.error).toMatchObject({ code: 'invalid_api_key', message: expect.stringContaining('revoked') });
    }
    expect((await adminCall(b.url, 'DELETE', `/admin/tokens/${doomed.id}`)).body).toEqual({ id: doomed.id, revoked: true });
    expect((await adminCall(b.url, 'DELETE', '/admin/tokens/tok_0000000000000000')).status).toBe(404);
    const revocations = await db.selectFrom('audit').selectAll().where('action', '=', 'token.revoke').where('target_id', '=', doomed.id).execute();
    expect(revocations).toHaveLength(1);
    expect(JSON.parse(revocations[0]!.before_json!)).toMatchObject({ status: 'active', revoked_at: null });
    expect(JSON.parse(revocations[0]!.after_json!)).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });

    const lapsed = await createToken(a.url, { name: 'temporary', role: 'auditor', expires_at: '2999-01-01T00:00:00Z' });
    expect((await adminCall(b.url, 'GET', '/admin/health', { token: lapsed.token })).status).toBe(200);
    await db.updateTable('admin_tokens').set({ expires_at: '2001-01-01T00:00:00.000Z' }).where('id', '=', lapsed.id).execute();
    expect((await adminCall(b.url, 'GET', '/admin/health', { token: lapsed.token })).status).toBe(401);

    const statuses = ((await adminCall(a.url, 'GET', '/admin/tokens')).body.data as { id: string; status: string }[]).filter((view) => [doomed.id, lapsed.id].includes(view.id));
    expect(statuses.map((view) => view.status)).toEqual(['revoked', 'expired']);
  });

  it.skipIf(skip)('a forged or malformed token is refused 401 without telling which', async () => {
    for (const token of ['sy-admin-forgedforgedforgedforgedforgedforgedfor', 'sy-admin-short', 'not-a-token']) {
      const answer = await adminCall(a.url, 'GET', '/admin/me', { token });
      expect(answer.status, token).toBe(401);
      expect(answer.text).not.toContain(token);
    }
  });

  it.skipIf(skip)('a scoped token still works on a gateway whose config has no admin.token, which refuses everything else', async () => {
    const auditor = await createToken(a.url, { name: 'kept', role: 'auditor' });
    const without = await startGateway(`${storeLine}\nauth: { mode: keys }\n${ROUTES}`);
    try {
      expect((await adminCall(without.url, 'GET', '/admin/tokens', { token: auditor.token })).status).toBe(200);
      const refused = await adminCall(without.url, 'GET', '/admin/tokens', { token: ADMIN_TOKEN });
      expect(refused.status).toBe(401);
      expect(refused.body.error?.message).toContain('disabled');
    } finally {
      await without.close();
    }
  });
});
