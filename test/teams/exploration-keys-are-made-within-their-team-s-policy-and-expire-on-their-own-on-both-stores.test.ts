import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { createToken } from '../support/admin-calls.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { ADMIN_TOKEN, adminCall, chat, createTeam, teamsConfig } from './team-calls.js';


const stores = bothStoresForThisFile('exploration');

const HOUR_MS = 3_600_000;

describe.each(stores)('exploration keys on a $name store', ({ skip, store }) => {
  let gateway: TestGateway;
  let url: string;
  let member: string;
  let memberId: string;

  beforeAll(async () => {
    if (skip) return;
    const storeLine = await store();
    gateway = await startGateway(teamsConfig(storeLine));
    url = gateway.url;
    const lab = await createTeam(url, { name: 'lab', exploration: { max_ttl_s: 3600, limits: { rpm: 2, tpm: 50_000 }, budget: { usd: 1, period: 'day' } } });
    await createTeam(url, { name: 'plain' });
    // Long enough for one request on a loaded machine, short enough to wait for.
    await createTeam(url, { name: 'blink', exploration: { max_ttl_s: 5 } });
    member = (await createToken(url, { name: 'explorer', role: 'member', team: lab })).token;
    memberId = (await adminCall(url, 'GET', '/admin/me', { token: member })).body.id as string;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const explore = (body: Record<string, unknown>, token = member) => adminCall(url, 'POST', '/admin/keys', { token, body: { kind: 'exploration', ...body } });

  it.skipIf(skip)("gives a key asked with nothing but its team the policy's expiry, limits and budget, owned by whoever made it", async () => {
    const before = Date.now();
    const made = await explore({ name: 'first try', team: 'lab' });
    const after = Date.now();
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ kind: 'exploration', owner: memberId, limits: { rpm: 2, tpm: 50_000 }, budget: { usd: 1, period: 'day' } });
    const expiresMs = Date.parse(made.body.expires_at as string);
    expect(expiresMs).toBeGreaterThanOrEqual(before + HOUR_MS);
    expect(expiresMs).toBeLessThanOrEqual(after + HOUR_MS);
    // The policy's rpm is the key's own: the third request in the minute is refused.
    const key = made.body.key as string;
    expect([await chat(url, key), await chat(url, key), await chat(url, key)]).toEqual([200, 200, 429]);
  });

  it.skipIf(skip)('keeps what was asked within the policy, filling in only what was left out', async () => {
    const expiresAt = new Date(Date.now() + HOUR_MS / 2).toISOString();
    const made = await explore({ name: 'careful', team: 'lab', expires_at: expiresAt, limits: { rpm: 1 }, budget: { usd: 0.25, period: 'day' } });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ expires_at: expiresAt, limits: { rpm: 1, tpm: 50_000 }, budget: { usd: 0.25, period: 'day' } });
  });

  it.skipIf(skip)('refuses a key asked beyond the policy with a 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ expires_at: new Date(Date.now() + 2 * HOUR_MS).toISOString() }, 'expires_at'],
      [{ limits: { rpm: 3 } }, 'limits.rpm'],
      [{ limits: { tpm: 50_001 } }, 'limits.tpm'],
      [{ budget: { usd: 1.5, period: 'day' } }, 'budget.usd'],
      [{ budget: { usd: 0.5, period: 'month' } }, 'budget.period'],
    ];
    for (const [fields, param] of cases) {
      const refused = await explore({ name: 'greedy', team: 'lab', ...fields });
      expect(refused.status, JSON.stringify(fields)).toBe(400);
      expect(refused.body.error, JSON.stringify(fields)).toMatchObject({ code: 'invalid_request_error', param, message: expect.stringContaining('exploration policy') });
    }
  });

  it.skipIf(skip)('lives seven days under the default policy, and needs a team', async () => {
    const before = Date.now();
    const made = await explore({ name: 'default', team: 'plain' }, ADMIN_TOKEN);
    expect(made.status, made.text).toBe(201);
    // The break-glass admin makes one for itself.
    expect(made.body).toMatchObject({ owner: 'admin.token', limits: { rpm: null, tpm: null }, budget: null });
    expect(Date.parse(made.body.expires_at as string)).toBeGreaterThanOrEqual(before + 7 * 24 * HOUR_MS);
    const teamless = await explore({ name: 'nowhere' }, ADMIN_TOKEN);
    expect(teamless.status).toBe(400);
    expect(teamless.body.error?.param).toBe('team');
  });

  it.skipIf(skip)('expires on its own: answered until its expiry, refused with 401 from then on, and listed as expired', async () => {
    const made = await explore({ name: 'brief', team: 'blink' }, ADMIN_TOKEN);
    expect(made.status, made.text).toBe(201);
    const key = made.body.key as string;
    const expiresMs = Date.parse(made.body.expires_at as string);
    expect(await chat(url, key)).toBe(200);
    let status = 200;
    for (let tries = 0; status === 200 && tries < 200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await chat(url, key);
    }
    expect(status).toBe(401);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresMs - 1);
    const listed = ((await adminCall(url, 'GET', '/admin/keys')).body.data ?? []).find((entry) => entry.id === made.body.id);
    expect(listed).toMatchObject({ status: 'expired', kind: 'exploration' });
  });
});
