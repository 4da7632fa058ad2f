import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { authenticateRequest } from '../../src/keys/authenticate.js';
import { hashSecret } from '../../src/keys/key-secret.js';
import { startKeysServer, type KeysServer } from './start-keys-server.js';

const TOKEN = 'admin-token-for-key-tests';
let admin: KeysServer;

beforeAll(async () => {
  admin = await startKeysServer(TOKEN);
});

afterAll(async () => {
  await admin?.close();
});

afterEach(() => {
  admin.setNowMs(undefined);
});

interface Answer {
  status: number;
  text: string;
  body: unknown;
  headers: Headers;
}

/** `token: null` sends no Authorization header; a string body is sent as is. */
async function call(method: string, path: string, options: { body?: unknown; token?: string | null } = {}): Promise<Answer> {
  const token = options.token === undefined ? TOKEN : options.token;
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${admin.url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
    signal: AbortSignal.timeout(5_000),
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text), headers: response.headers };
}

const errorOf = (body: unknown) => (body as { error: { code: string; param: string | null; message: string; type: string } }).error;

async function createKey(body: unknown): Promise<{ id: string; key: string } & Record<string, unknown>> {
  const answer = await call('POST', '/admin/keys', { body });
  expect(answer.status).toBe(201);
  return answer.body as { id: string; key: string } & Record<string, unknown>;
}

/** What the request path would decide for this secret right now. */
function authenticate(secret: string) {
  return authenticateRequest({ authorization: `Bearer ${secret}` }, { mode: 'keys', keys: admin.cache, nowMs: Date.now() });
}

describe('admin keys API', () => {
  it('creates a key and shows the secret once, with everything else about it', async () => {
    const answer = await call('POST', '/admin/keys', {
      body: {
        name: 'support bot',
        routes: ['support-*', 'openai-prod/*'],
        direct: false,
        budget: { usd: 12.5, period: 'month' },
        limits: { rpm: 60, tpm: 100_000 },
        expires_at: '2999-01-01T00:00:00+02:00',
      },
    });
    expect(answer.status).toBe(201);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const created = answer.body as Record<string, unknown>;
    expect(created).toEqual({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^sk-sy-[A-Za-z0-9_-]{43}$/),
      name: 'support bot',
      key_prefix: (created.key as string).slice(0, 10),
      routes: ['support-*', 'openai-prod/*'],
      direct: false,
      budget: { usd: 12.5, period: 'month' },
      limits: { rpm: 60, tpm: 100_000 },
      expires_at: '2998-12-31T22:00:00.000Z',
      created_at: expect.any(String),
      team: null,
      kind: 'service',
      owner: null,
    });
    const principal = await authenticate(created.key as string);
    expect(principal).toMatchObject({ kind: 'key', key: { id: created.id, name: 'support bot', budget: { usdMicros: 12_500_000, period: 'month' } } });
  });

  it('fills what was left out: every route, the direct form, no budget, no limits, no expiry', async () => {
    const created = await createKey({ name: 'minimal' });
    expect(created).toMatchObject({ routes: null, direct: true, budget: null, limits: { rpm: null, tpm: null }, expires_at: null });
  });

  it('lists keys without ever showing a secret or its hash', async () => {
    const created = await createKey({ name: 'listed', routes: ['search'] });
    const answer = await call('GET', '/admin/keys');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.text).not.toContain(created.key);
    expect(answer.text).not.toContain(created.key.slice(10));
    expect(answer.text).not.toContain(hashSecret(created.key));
    const listed = (answer.body as { data: Record<string, unknown>[] }).data.find((key) => key.id === created.id);
    expect(listed).toEqual({
      id: created.id,
      name: 'listed',
      key_prefix: created.key_prefix,
      routes: ['search'],
      direct: true,
      budget: null,
      limits: { rpm: null, tpm: null },
      expires_at: null,
      created_at: created.created_at,
      revoked_at: null,
      status: 'active',
      team: null,
      kind: 'service',
      owner: null,
    });
  });

  it('revokes a key: 200, effective on the very next request, and listed as revoked', async () => {
    const created = await createKey({ name: 'to revoke' });
    // Seen once, so the cache holds it: revocation must reach the cache, not just the store.
    expect((await authenticate(created.key)).kind).toBe('key');
    const answer = await call('DELETE', `/admin/keys/${created.id}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ id: created.id, revoked: true });
    await expect(authenticate(created.key)).rejects.toMatchObject({ status: 401, code: 'invalid_api_key', message: expect.stringContaining('revoked') });
    // Revoking again is not an error.
    expect((await call('DELETE', `/admin/keys/${created.id}`)).status).toBe(200);
    const listed = ((await call('GET', '/admin/keys')).body as { data: { id: string; status: string; revoked_at: string | null }[] }).data;
    expect(listed.find((key) => key.id === created.id)).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
  });

  it('answers 404 when revoking or reading the spend of an unknown key', async () => {
    for (const [method, path] of [
      ['DELETE', '/admin/keys/key_unknown'],
      ['GET', '/admin/keys/key_unknown/spend'],
    ] as const) {
      const answer = await call(method, path);
      expect(answer.status).toBe(404);
      expect(errorOf(answer.body).code).toBe('not_found');
    }
  });

  it('reports spend in the current budget period', async () => {
    admin.setNowMs(Date.parse('2025-03-10T15:00:00Z'));
    const monthly = await createKey({ name: 'monthly', budget: { usd: 100, period: 'month' } });
    const daily = await createKey({ name: 'daily', budget: { usd: 5, period: 'day' } });
    const total = await createKey({ name: 'total', budget: { usd: 1000, period: 'total' } });
    const unlimited = await createKey({ name: 'unlimited' });
    admin.setNowMs(Date.parse('2025-04-02T09:30:00Z'));
    const spend = async (id: string) => (await call('GET', `/admin/keys/${id}/spend`)).body;
    expect(await spend(monthly.id)).toEqual({ key_id: monthly.id, usd: 0, reserved_usd: 0, budget_usd: 100, period: 'month', period_start: '2025-04-01T00:00:00.000Z' });
    expect(await spend(daily.id)).toMatchObject({ budget_usd: 5, period: 'day', period_start: '2025-04-02T00:00:00.000Z' });
    expect(await spend(total.id)).toMatchObject({ budget_usd: 1000, period: 'total', period_start: '2025-03-10T15:00:00.000Z' });
    expect(await spend(unlimited.id)).toMatchObject({ budget_usd: null, period: null, period_start: '2025-03-10T15:00:00.000Z' });
  });

  it('refuses a key past its expiry, saying it expired', async () => {
    const created = await createKey({ name: 'short-lived', expires_at: new Date(Date.now() + 60_000).toISOString() });
    const error = await authenticateRequest(
      { 'x-api-key': created.key },
      { mode: 'keys', keys: admin.cache, nowMs: Date.now() + 120_000 },
    ).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key', message: expect.stringContaining('expired') });
  });

  it.each([
    ['no name', {}, 'name'],
    ['an empty name', { name: '  ' }, 'name'],
    ['a name that is not text', { name: 42 }, 'name'],
    ['routes that are not a list', { name: 'n', routes: 'support-*' }, 'routes'],
    ['an empty routes list', { name: 'n', routes: [] }, 'routes'],
    ['an empty route glob', { name: 'n', routes: ['support', ''] }, 'routes[1]'],
    ['a direct flag that is not true or false', { name: 'n', direct: 'no' }, 'direct'],
    ['a zero budget', { name: 'n', budget: { usd: 0, period: 'month' } }, 'budget.usd'],
    ['a negative budget', { name: 'n', budget: { usd: -5, period: 'month' } }, 'budget.usd'],
    ['a budget below a micro-dollar', { name: 'n', budget: { usd: 1e-9, period: 'month' } }, 'budget.usd'],
    ['a budget in text', { name: 'n', budget: { usd: '10', period: 'month' } }, 'budget.usd'],
    ['an unknown budget period', { name: 'n', budget: { usd: 10, period: 'week' } }, 'budget.period'],
    ['a budget without a period', { name: 'n', budget: { usd: 10 } }, 'budget.period'],
    ['a fractional rpm', { name: 'n', limits: { rpm: 1.5 } }, 'limits.rpm'],
    ['a zero tpm', { name: 'n', limits: { tpm: 0 } }, 'limits.tpm'],
    ['an unknown limit', { name: 'n', limits: { rpd: 10 } }, 'limits.rpd'],
    ['an expiry that is not a time', { name: 'n', expires_at: 'next tuesday' }, 'expires_at'],
    ['an expiry without a zone', { name: 'n', expires_at: '2999-01-01T00:00:00' }, 'expires_at'],
    ['an expiry in the past', { name: 'n', expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
  ])('answers 400 naming the field for %s', async (_case, body, param) => {
    const answer = await call('POST', '/admin/keys', { body });
    expect(answer.status).toBe(400);
    expect(errorOf(answer.body)).toMatchObject({ code: 'invalid_request_error', param });
    expect(errorOf(answer.body).message).toContain(param);
  });

  it('says a field has the wrong type rather than that it is missing', async () => {
    const answer = await call('POST', '/admin/keys', { body: { name: 42 } });
    expect(errorOf(answer.body).message).toBe('Invalid request: name: Invalid input: expected string, received number.');
  });

  it('answers 400 naming an unknown field', async () => {
    const answer = await call('POST', '/admin/keys', { body: { name: 'n', budget_usd: 10 } });
    expect(answer.status).toBe(400);
    expect(errorOf(answer.body).message).toContain('budget_usd');
  });

  it('answers 400 to a body that is not JSON', async () => {
    const answer = await call('POST', '/admin/keys', { body: '{"name": ' });
    expect(answer.status).toBe(400);
    expect(errorOf(answer.body).code).toBe('invalid_json');
  });

  it.each([
    ['no Authorization header', null],
    ['a wrong token', 'not-the-admin-token'],
  ])('answers 401 invalid_api_key to %s on every key route', async (_case, token) => {
    const created = await createKey({ name: 'guarded' });
    const before = (await admin.store.list()).length;
    for (const [method, path, body] of [
      ['POST', '/admin/keys', { name: 'intruder' }],
      ['GET', '/admin/keys', undefined],
      ['DELETE', `/admin/keys/${created.id}`, undefined],
      ['GET', `/admin/keys/${created.id}/spend`, undefined],
    ] as const) {
      const answer = await call(method, path, { body, token });
      expect(answer.status).toBe(401);
      expect(errorOf(answer.body).code).toBe('invalid_api_key');
    }
    expect((await admin.store.list()).length).toBe(before);
    expect((await admin.store.get(created.id))?.revokedAt).toBeNull();
  });
});

describe('admin keys API without an admin token configured', () => {
  it('answers 401 to everyone', async () => {
    const closed = await startKeysServer(undefined);
    try {
      const response = await fetch(`${closed.url}/admin/keys`, { headers: { authorization: 'Bearer anything' } });
      expect(response.status).toBe(401);
    } finally {
      await closed.close();
    }
  });
});
