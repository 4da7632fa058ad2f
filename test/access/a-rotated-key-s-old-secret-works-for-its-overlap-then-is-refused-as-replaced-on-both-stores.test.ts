import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseSchema } from '../../src/store/schema.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { storeDatabase } from '../support/store-database.js';
import { createTeam } from '../support/admin-calls.js';
import { createKey, keysAuth } from '../support/virtual-keys.js';
import { ADMIN_TOKEN, adminCall, chatWith, createToken } from './admin-calls.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const ROUTES = `
connections:
  mock: { provider: mock }
routes:
  r: { targets: [{ connection: mock, model: m }] }
`;

interface Rotated {
  id: string;
  key: string;
  key_prefix: string;
  previous_expires_at: string;
  status: string;
}

describe.each(bothStoresForThisFile('key-rotation'))('key rotation on the $name store', ({ skip, store }) => {
  let gateway: TestGateway;
  let db: Kysely<DatabaseSchema>;

  beforeAll(async () => {
    if (skip) return;
    const storeLine = await store();
    gateway = await startGateway(`${storeLine}\n${keysAuth(ADMIN_TOKEN)}\n${ROUTES}`);
    db = storeDatabase(storeLine);
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await db?.destroy();
  });

  async function rotate(id: string, body?: unknown) {
    return adminCall(gateway.url, 'POST', `/admin/keys/${id}/rotate`, body === undefined ? {} : { body });
  }

  it.skipIf(skip)('a rotation shows the new secret once; both secrets are served for the default hour; rotating again stops the oldest at once', async () => {
    const created = await createKey(gateway.url, ADMIN_TOKEN, { name: 'billing service' });
    // Served once, so the gateway has the first secret cached when the rotation lands.
    expect((await chatWith(gateway.url, created.key)).status).toBe(200);

    const askedAtMs = Date.now();
    const answer = await rotate(created.id);
    const answeredAtMs = Date.now();
    expect(answer.status).toBe(201);
    const rotated = answer.body as unknown as Rotated;
    expect(rotated).toMatchObject({ id: created.id, name: 'billing service', status: 'active', key: expect.stringMatching(/^sk-sy-[A-Za-z0-9_-]{43}$/) });
    expect(rotated.key).not.toBe(created.key);
    expect(rotated.key_prefix).toBe(rotated.key.slice(0, 10));
    const overlapEndMs = Date.parse(rotated.previous_expires_at);
    expect(overlapEndMs).toBeGreaterThanOrEqual(askedAtMs - 1 + 3_600_000);
    expect(overlapEndMs).toBeLessThanOrEqual(answeredAtMs + 1 + 3_600_000);

    expect((await chatWith(gateway.url, rotated.key)).status).toBe(200);
    expect((await chatWith(gateway.url, created.key)).status).toBe(200);
    const listed = (await adminCall(gateway.url, 'GET', '/admin/keys')).text;
    expect(listed).not.toContain(rotated.key);

    const again = (await rotate(created.id, { overlap_s: 600 })).body as unknown as Rotated;
    const oldest = await chatWith(gateway.url, created.key);
    expect(oldest.status).toBe(401);
    expect(oldest.body.error).toMatchObject({ code: 'invalid_api_key' });
    expect((await chatWith(gateway.url, rotated.key)).status).toBe(200);
    expect((await chatWith(gateway.url, again.key)).status).toBe(200);
  });

  it.skipIf(skip)('with overlap_s 0 the old secret is refused at once as replaced by a rotation; with 1 s, once its second is over', async () => {
    const created = await createKey(gateway.url, ADMIN_TOKEN, { name: 'at once' });
    expect((await chatWith(gateway.url, created.key)).status).toBe(200);
    const rotated = (await rotate(created.id, { overlap_s: 0 })).body as unknown as Rotated;
    const refused = await chatWith(gateway.url, created.key);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ code: 'invalid_api_key', message: expect.stringContaining('replaced by a rotation') });
    expect((await chatWith(gateway.url, rotated.key)).status).toBe(200);

    const soon = (await rotate(created.id, { overlap_s: 1 })).body as unknown as Rotated;
    let refusal: Awaited<ReturnType<typeof chatWith>> | undefined;
    await eventually(
      async () => {
        const answer = await chatWith(gateway.url, rotated.key);
        if (answer.status !== 200) refusal = answer;
        return refusal !== undefined;
      },
      10_000,
      'the replaced secret refused once its overlap is over',
    );
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(soon.previous_expires_at) - 1);
    expect(refusal!.status).toBe(401);
    expect(refusal!.body.error?.message).toContain(`expired at ${soon.previous_expires_at}`);
    expect(refusal!.body.error?.message).toContain('replaced by a rotation');
  });

  it.skipIf(skip)('a bad overlap_s or field is a 400 naming it; a revoked key is a 409 and an unknown one a 404', async () => {
    const created = await createKey(gateway.url, ADMIN_TOKEN, { name: 'bad bodies' });
    const cases: [unknown, string][] = [
      [{ overlap_s: -1 }, 'overlap_s'],
      [{ overlap_s: 1.5 }, 'overlap_s'],
      [{ overlap_s: '60' }, 'overlap_s'],
      [{ overlap_s: 30 * 24 * 3600 + 1 }, 'overlap_s'],
      [{ overlap: 60 }, 'overlap'],
    ];
    for (const [body, param] of cases) {
      const answer = await rotate(created.id, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error, JSON.stringify(body)).toMatchObject({ code: 'invalid_request_error', param });
    }
    // Nothing was rotated by the refused bodies.
    expect((await chatWith(gateway.url, created.key)).status).toBe(200);

    expect((await adminCall(gateway.url, 'DELETE', `/admin/keys/${created.id}`)).status).toBe(200);
    const revoked = await rotate(created.id);
    expect(revoked.status).toBe(409);
    expect(revoked.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining('revoked') });
    expect((await rotate('key_0000000000000000')).status).toBe(404);
  });

  it.skipIf(skip)('a team_admin rotates its team’s keys only; the trail has the rotation without a secret or a hash', async () => {
    const teamA = await createTeam(gateway.url, { name: 'rotation-a' });
    const teamB = await createTeam(gateway.url, { name: 'rotation-b' });
    const created = await createKey(gateway.url, ADMIN_TOKEN, { name: 'team a service', team: teamA });
    const leadA = await createToken(gateway.url, { name: 'lead a', role: 'team_admin', team: teamA });
    const leadB = await createToken(gateway.url, { name: 'lead b', role: 'team_admin', team: teamB });

    const refused = await adminCall(gateway.url, 'POST', `/admin/keys/${created.id}/rotate`, { token: leadB.token, body: {} });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'permission_denied', message: expect.stringContaining('"team_admin"') });
    const answer = await adminCall(gateway.url, 'POST', `/admin/keys/${created.id}/rotate`, { token: leadA.token, body: {} });
    expect(answer.status).toBe(201);
    const rotated = answer.body as unknown as Rotated;

    const unteamed = await createKey(gateway.url, ADMIN_TOKEN, { name: 'no team' });
    const adminsOnly = await adminCall(gateway.url, 'POST', `/admin/keys/${unteamed.id}/rotate`, { token: leadA.token, body: {} });
    expect(adminsOnly.status).toBe(403);
    expect(adminsOnly.body.error?.message).toContain('the role "admin"');

    const rows = await db.selectFrom('audit').selectAll().where('action', '=', 'key.rotate').where('target_id', '=', created.id).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]!.actor_json)).toEqual({ kind: 'token', id: leadA.id, name: 'lead a', role: 'team_admin' });
    expect(JSON.parse(rows[0]!.before_json!)).toMatchObject({ id: created.id, key_prefix: created.key.slice(0, 10), previous_expires_at: null });
    expect(JSON.parse(rows[0]!.after_json!)).toMatchObject({ id: created.id, key_prefix: rotated.key_prefix, previous_expires_at: rotated.previous_expires_at });
    const trail = JSON.stringify(await db.selectFrom('audit').selectAll().execute());
    for (const secret of [created.key, rotated.key]) {
      expect(trail).not.toContain(secret);
      expect(trail).not.toContain(sha256(secret));
    }
  });
});
