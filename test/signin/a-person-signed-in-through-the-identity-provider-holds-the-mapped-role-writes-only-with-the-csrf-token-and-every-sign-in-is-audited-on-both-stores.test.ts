import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { loggerInto } from '../support/captured-log.js';
import { IDP_CLIENT_ID, IDP_CLIENT_SECRET, startIdentityProvider, type TestIdentityProvider } from '../support/identity-provider.js';
import { CookieJar, send, signInOverHttp } from '../support/sign-in-over-http.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { createTeam } from '../support/admin-calls.js';
import { withStore } from '../support/store-rows.js';

const ADMIN_TOKEN = 'signin-admin-token-5d0c8e21';
const PEOPLE = {
  olga: { name: 'Olga Platform', email: 'olga@corp.test', groups: ['platform'] },
  ana: { name: 'Ana Oncall', email: 'ana@corp.test', groups: ['oncall', 'marketing'] },
  tom: { name: 'Tom Payments', email: 'tom@corp.test', groups: ['payments-leads', 'search-devs', 'gone-team-devs'] },
  eve: { name: 'Eve Marketing', email: 'eve@corp.test', groups: ['marketing', 'sales'] },
};

/** What no audit row and no log line may hold, gathered as the tests see them. */
const secretsSeen = new Set<string>([IDP_CLIENT_SECRET]);

function gatewayConfig(store: string, issuer: string): string {
  return `
${store}
admin:
  token: ${ADMIN_TOKEN}
  oidc:
    issuer: "${issuer}"
    client_id: ${IDP_CLIENT_ID}
    client_secret: "\${env:OIDC_CLIENT_SECRET}"
    roles:
      platform: admin
      oncall: auditor
      payments-leads: { team_admin: payments }
      search-devs: { member: search }
      gone-team-devs: { member: no-such-team }
connections:
  mock: { provider: mock }
routes:
  r: { targets: [{ connection: mock, model: m }] }
`;
}

/** Signs `login` in through `start` (finishing at `finishAt` when given) and keeps what is secret about it. */
async function signIn(start: TestGateway, login: string, options: { finishAt?: TestGateway } = {}) {
  const jar = new CookieJar();
  const signedIn = await signInOverHttp(`${start.url}/ui/login/oidc`, login, jar, options.finishAt ? { finishAt: options.finishAt.url } : {});
  secretsSeen.add(signedIn.callbackUrl.searchParams.get('code')!);
  for (const name of ['switchyard_session', 'switchyard_csrf']) {
    const value = jar.get(name);
    if (value) secretsSeen.add(value);
  }
  return { jar, ...signedIn };
}

const me = async (gateway: TestGateway, jar: CookieJar) => send(`${gateway.url}/admin/me`, jar);

function createKey(gateway: TestGateway, jar: CookieJar, headers: Record<string, string> = {}) {
  return send(`${gateway.url}/admin/keys`, jar, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ name: 'from-the-dashboard' }) });
}

const stores = bothStoresForThisFile('signin');

describe.each(stores)('on the $name store', ({ skip, store }) => {
  let identityProvider: TestIdentityProvider;
  let replicas: TestGateway[] = [];
  /** The ids the teams API gave `payments` and `search`, which the config names by name. */
  const teams = { payments: '', search: '' };
  const logLines: string[] = [];

  beforeAll(async () => {
    if (skip) return;
    identityProvider = await startIdentityProvider({ people: PEOPLE });
    const config = gatewayConfig(await store(), identityProvider.issuer);
    const options = { env: { OIDC_CLIENT_SECRET: IDP_CLIENT_SECRET }, logger: loggerInto(logLines, 'info') };
    replicas = [await startGateway(config, options), await startGateway(config, options)];
    for (const replica of replicas) identityProvider.allowCallback(`${replica.url}/ui/login/oidc/callback`);
    teams.payments = await createTeam(replicas[0]!.url, { name: 'payments' }, ADMIN_TOKEN);
    teams.search = await createTeam(replicas[0]!.url, { name: 'search' }, ADMIN_TOKEN);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.close()));
    await identityProvider?.close();
  });

  it.skipIf(skip)('a person whose groups map to auditor lands on the dashboard with a session that reads everything and changes nothing', async () => {
    const [gateway] = replicas as [TestGateway];
    const { callback, jar } = await signIn(gateway, 'ana');
    expect(callback.status).toBe(303);
    expect(callback.headers.get('location')).toBe('/ui/');
    const cookies = callback.headers.getSetCookie();
    expect(cookies).toContainEqual(expect.stringMatching(/^switchyard_session=[\w-]+\.[\w-]+; Path=\/; Max-Age=28800; SameSite=Lax; HttpOnly$/));
    expect(cookies).toContainEqual(expect.stringMatching(/^switchyard_csrf=[\w-]+; Path=\/; Max-Age=28800; SameSite=Lax$/));

    const who = await me(gateway, jar);
    expect(who.status).toBe(200);
    expect(await who.json()).toMatchObject({ kind: 'user', id: 'ana', name: 'Ana Oncall', role: 'auditor', global_role: 'auditor', teams: [] });
    expect((await send(`${gateway.url}/admin/keys`, jar)).status).toBe(200);
    const write = await createKey(gateway, jar, { 'x-csrf-token': jar.get('switchyard_csrf')! });
    expect(write.status).toBe(403);
    expect(((await write.json()) as { error: { code: string } }).error.code).toBe('permission_denied');
  });

  it.skipIf(skip)("holds a team role in each team its groups name, by the team's name or id; a team the store lacks grants nothing", async () => {
    const { jar } = await signIn(replicas[0]!, 'tom');
    expect(await (await me(replicas[0]!, jar)).json()).toMatchObject({
      id: 'tom',
      role: 'team_admin',
      global_role: null,
      teams: [
        { team: teams.payments, role: 'team_admin' },
        { team: teams.search, role: 'member' },
      ],
    });
  });

  it.skipIf(skip)('a sign-in started on one replica finishes on the other, and the session works on both', async () => {
    const [first, second] = replicas as [TestGateway, TestGateway];
    const { callback, jar } = await signIn(first, 'olga', { finishAt: second });
    expect(callback.status).toBe(303);
    for (const replica of replicas) expect(await (await me(replica, jar)).json()).toMatchObject({ id: 'olga', role: 'admin' });
  });

  it.skipIf(skip)('a change made with the session cookie needs its CSRF token; one made with a bearer token needs none', async () => {
    const [gateway] = replicas as [TestGateway];
    const { jar } = await signIn(gateway, 'olga');
    for (const headers of [{}, { 'x-csrf-token': 'guessed' }] as Record<string, string>[]) {
      const refused = await createKey(gateway, jar, headers);
      expect(refused.status).toBe(403);
      const { error } = (await refused.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('csrf_token_invalid');
      expect(error.message).toContain('x-csrf-token');
    }
    expect((await createKey(gateway, jar, { 'x-csrf-token': jar.get('switchyard_csrf')! })).status).toBe(201);
    expect((await createKey(gateway, new CookieJar(), { authorization: `Bearer ${ADMIN_TOKEN}` })).status).toBe(201);
  });

  it.skipIf(skip)('a session cookie changed by hand stands for nobody', async () => {
    const [gateway] = replicas as [TestGateway];
    const { jar } = await signIn(gateway, 'ana');
    const [payload, signature] = jar.get('switchyard_session')!.split('.') as [string, string];
    const promoted = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('"global":"auditor"', '"global":"admin"')).toString('base64url');
    jar.set('switchyard_session', `${promoted}.${signature}`);
    expect((await me(gateway, jar)).status).toBe(401);
  });

  it.skipIf(skip)('a person whose groups map to no role is refused with a page naming the claim and its values, and gets no session', async () => {
    const [gateway] = replicas as [TestGateway];
    const { callback, jar } = await signIn(gateway, 'eve');
    expect(callback.status).toBe(403);
    expect(callback.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await callback.text();
    expect(page).toContain('You hold no role at this gateway');
    expect(page).toContain('as Eve Marketing');
    expect(page).toContain('your &#34;groups&#34; claim held &#34;marketing&#34;, &#34;sales&#34;');
    expect(jar.get('switchyard_session')).toBeUndefined();
    expect((await me(gateway, jar)).status).toBe(401);
  });

  it.skipIf(skip)('a callback this browser did not start is refused, and so is one carrying the identity provider’s refusal', async () => {
    const [gateway] = replicas as [TestGateway];
    const stranger = await send(`${gateway.url}/ui/login/oidc/callback?code=stolen-code&state=made-up`, new CookieJar());
    expect(stranger.status).toBe(400);
    expect(await stranger.text()).toContain('It was not started in this browser');

    const jar = new CookieJar();
    const started = await send(`${gateway.url}/ui/login/oidc`, jar);
    const authorization = new URL(started.headers.get('location')!);
    expect(authorization.origin).toBe(identityProvider.issuer);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('scope')).toBe('openid profile email');
    const state = authorization.searchParams.get('state')!;
    const denied = await send(`${gateway.url}/ui/login/oidc/callback?error=access_denied&state=${encodeURIComponent(state)}`, jar);
    expect(denied.status).toBe(403);
    expect(await denied.text()).toContain('It answered access_denied.');

    // The right state with a code the identity provider never issued: the exchange fails.
    const forged = await signInOverHttp(`${gateway.url}/ui/login/oidc`, 'olga', new CookieJar(), { tamper: (callback) => callback.searchParams.set('code', 'forged-code') });
    expect(forged.callback.status).toBe(502);
    expect(await forged.callback.text()).toContain('answer could not be used: invalid_grant');
    secretsSeen.add(forged.callbackUrl.searchParams.get('code')!);
  });

  it.skipIf(skip)('sign-out, with its CSRF token, clears the session in this browser', async () => {
    const [gateway] = replicas as [TestGateway];
    const { jar } = await signIn(gateway, 'olga');
    expect((await send(`${gateway.url}/ui/logout`, jar, { method: 'POST' })).status).toBe(403);
    const out = await send(`${gateway.url}/ui/logout`, jar, { method: 'POST', headers: { 'x-csrf-token': jar.get('switchyard_csrf')! } });
    expect(out.status).toBe(204);
    expect(jar.get('switchyard_session')).toBeUndefined();
    expect(jar.get('switchyard_csrf')).toBeUndefined();
    expect((await me(gateway, jar)).status).toBe(401);
  });

  it.skipIf(skip)('every sign-in and refused sign-in is a row of the audit trail, and no row or log line holds the client secret, a code or a session', async () => {
    const rows = await withStore(replicas[0]!.configSource.current.store, (db) => db.selectFrom('audit').selectAll().orderBy('seq').execute());
    const signIns = rows.filter((row) => row.action === 'signin');
    expect(signIns.map((row) => row.actor_id).sort()).toEqual(['ana', 'ana', 'olga', 'olga', 'olga', 'tom']);
    const tom = signIns.find((row) => row.actor_id === 'tom')!;
    expect(JSON.parse(tom.actor_json)).toEqual({ kind: 'user', id: 'tom', name: 'Tom Payments', role: 'team_admin' });
    expect(JSON.parse(tom.after_json!)).toEqual({
      global_role: null,
      teams: [
        { team: teams.payments, role: 'team_admin' },
        { team: teams.search, role: 'member' },
      ],
    });
    const refused = rows.filter((row) => row.action === 'signin.refused').map((row) => ({ actor: JSON.parse(row.actor_json) as unknown, after: JSON.parse(row.after_json!) as unknown }));
    expect(refused).toEqual([
      { actor: { kind: 'user', id: 'eve', name: 'Eve Marketing', role: null }, after: { reason: 'no_mapped_role', claim: 'groups', values: ['marketing', 'sales'] } },
      { actor: { kind: 'user', id: 'unknown', name: 'unknown', role: null }, after: { reason: 'bad_state' } },
      { actor: { kind: 'user', id: 'unknown', name: 'unknown', role: null }, after: { reason: 'identity_provider_error', error: 'access_denied' } },
      { actor: { kind: 'user', id: 'unknown', name: 'unknown', role: null }, after: { reason: 'exchange_failed', error: expect.stringContaining('invalid_grant') } },
    ]);
    expect(rows.every((row) => row.source_ip === '127.0.0.1' && row.request_id !== null)).toBe(true);
    const table = JSON.stringify(rows);
    const log = logLines.join('');
    expect(log).toContain('signed in through the identity provider');
    expect(secretsSeen.size).toBeGreaterThan(10);
    for (const secret of secretsSeen) {
      expect(table).not.toContain(secret);
      expect(log).not.toContain(secret);
    }
  });
});
