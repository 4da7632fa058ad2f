import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/core/request-record.js';
import { sampleRecord } from './sample-record.js';
import { startAdminServer, type AdminServer } from './start-admin-server.js';

const TOKEN = 'admin-token-for-tests';
let admin: AdminServer;

beforeAll(async () => {
  admin = await startAdminServer(TOKEN);
  admin.records.add(sampleRecord({ id: 'req_ok', created_at: '2025-03-01T12:00:00.000Z', route: 'support', status: 'ok' }));
  admin.records.add(sampleRecord({ id: 'req_failed', created_at: '2025-03-01T12:01:00.000Z', route: 'support', status: 'failed', http_status: 503 }));
  admin.records.add(sampleRecord({ id: 'req_search', created_at: '2025-03-01T12:02:00.000Z', route: 'search', status: 'ok' }));
});

afterAll(async () => {
  await admin?.close();
});

/** `token: null` sends no Authorization header. */
async function get(path: string, token: string | null = TOKEN): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await fetch(`${admin.url}${path}`, {
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(5_000),
  });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

const errorOf = (body: unknown) => (body as { error: { code: string; param: string | null; message: string } }).error;
const idsOf = (body: unknown) => (body as { data: RequestRecord[] }).data.map((record) => record.id);

describe('admin request records API', () => {
  it.each([
    ['no Authorization header', null],
    ['a wrong token', 'not-the-admin-token'],
    ['a token that is a prefix of the right one', TOKEN.slice(0, -1)],
  ])('answers 401 invalid_api_key to %s', async (_case, token) => {
    for (const path of ['/admin/requests/req_ok', '/admin/requests']) {
      const { status, body } = await get(path, token);
      expect(status).toBe(401);
      expect(errorOf(body).code).toBe('invalid_api_key');
    }
  });

  it('answers 401 to everyone, the right token included, when no admin token is configured', async () => {
    admin.setAdminToken(undefined);
    try {
      const { status, body } = await get('/admin/requests/req_ok');
      expect(status).toBe(401);
      expect(errorOf(body).message).toMatch(/no admin\.token is configured/);
    } finally {
      admin.setAdminToken(TOKEN);
    }
  });

  it('returns the record by id, readable before its write lands', async () => {
    const { status, body, headers } = await get('/admin/requests/req_failed');
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(body).toEqual(sampleRecord({ id: 'req_failed', created_at: '2025-03-01T12:01:00.000Z', route: 'support', status: 'failed', http_status: 503 }));
  });

  it('answers 404 not_found for an unknown id', async () => {
    const { status, body } = await get('/admin/requests/req_nope');
    expect(status).toBe(404);
    expect(errorOf(body).code).toBe('not_found');
  });

  it('lists records newest first, with filters', async () => {
    expect(idsOf((await get('/admin/requests')).body)).toEqual(['req_search', 'req_failed', 'req_ok']);
    expect(idsOf((await get('/admin/requests?route=support')).body)).toEqual(['req_failed', 'req_ok']);
    expect(idsOf((await get('/admin/requests?status=failed')).body)).toEqual(['req_failed']);
    expect(idsOf((await get('/admin/requests?since=2025-03-01T12:01:00Z')).body)).toEqual(['req_search', 'req_failed']);
    expect(idsOf((await get(`/admin/requests?since=${Date.parse('2025-03-01T12:02:00Z')}`)).body)).toEqual(['req_search']);
    expect(idsOf((await get('/admin/requests?route=support&limit=1')).body)).toEqual(['req_failed']);
  });

  it("lists callers' requests unless an origin (or all) is asked for, by key name, and pages from a record with before", async () => {
    admin.records.add(sampleRecord({ id: 'req_probe', created_at: '2025-03-01T12:03:00.000Z', route: null, key_name: null, origin: 'probe', probe: true }));
    expect(idsOf((await get('/admin/requests')).body)).toEqual(['req_search', 'req_failed', 'req_ok']);
    expect(idsOf((await get('/admin/requests?origin=caller')).body)).toEqual(['req_search', 'req_failed', 'req_ok']);
    expect(idsOf((await get('/admin/requests?origin=probe')).body)).toEqual(['req_probe']);
    expect(idsOf((await get('/admin/requests?origin=all')).body)).toEqual(['req_probe', 'req_search', 'req_failed', 'req_ok']);
    expect(idsOf((await get('/admin/requests?origin=canary')).body)).toEqual([]);
    expect(idsOf((await get('/admin/requests?key=team-a&limit=2')).body)).toEqual(['req_search', 'req_failed']);
    expect(idsOf((await get('/admin/requests?key=team-a&before=req_failed')).body)).toEqual(['req_ok']);
    expect(idsOf((await get('/admin/requests?key=team-b')).body)).toEqual([]);
  });

  it.each([
    ['status=exploded', 'status'],
    ['since=yesterday', 'since'],
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=ten', 'limit'],
    ['route=', 'route'],
    ['route=a&route=b', 'route'],
    ['stauts=ok', 'stauts'],
    ['origin=callers', 'origin'],
    ['origin=', 'origin'],
    ['key=', 'key'],
    ['key=a&key=b', 'key'],
    ['before=', 'before'],
    ['before=req_unknown', 'before'],
  ])('answers 400 naming the parameter for ?%s', async (query, param) => {
    const { status, body } = await get(`/admin/requests?${query}`);
    expect(status).toBe(400);
    expect(errorOf(body).param).toBe(param);
    expect(errorOf(body).message).toContain(param);
  });
});
