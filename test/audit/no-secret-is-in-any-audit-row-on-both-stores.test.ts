import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../scenario/scenario-helpers.js';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { adminCall } from '../support/admin-calls.js';
import { createKey } from '../support/virtual-keys.js';
import { auditRows, rawSql, rowsOf } from './audit-helpers.js';

const FIRST_ADMIN_TOKEN = 'audit-secrets-first-admin-token';
const SECOND_ADMIN_TOKEN = 'audit-secrets-second-admin-token';
const FIRST_PROVIDER_KEY = 'sk-audit-secrets-first-provider-key';
const SECOND_PROVIDER_KEY = 'sk-audit-secrets-second-provider-key';
const FIRST_CLIENT_SECRET = 'audit-secrets-first-oidc-client-secret';
const SECOND_CLIENT_SECRET = 'audit-secrets-second-oidc-client-secret';
const stores = bothStoresForThisFile('audit_secrets');

/** The identity provider is never asked (nobody signs in here): its client secret is only config to keep out of the trail. */
const config = (store: string, adminToken: string, providerKey: string, clientSecret: string) => `
${store}
auth: { mode: keys }
admin:
  token: ${adminToken}
  oidc: { issuer: "http://127.0.0.1:9", client_id: switchyard, client_secret: ${clientSecret}, roles: { platform: admin } }
connections:
  mock-openai: { provider: mock, dialect: openai, api_key: ${providerKey} }
routes:
  support: { targets: [{ connection: mock-openai, model: gpt-support }] }
`;

describe.each(stores)('on a $name store', ({ skip, store }) => {
  let gateway: TestGateway;
  let storeLine: string;
  /**
   * Every secret the gateway was given or handed out below: admin tokens, provider keys, the identity
   * provider's client secret, virtual keys (made and rotated) and a scoped admin API token. Sign-ins
   * are checked in test/signin/ (their rows hold neither the code, the tokens nor the client secret).
   */
  const secrets: string[] = [FIRST_ADMIN_TOKEN, SECOND_ADMIN_TOKEN, FIRST_PROVIDER_KEY, SECOND_PROVIDER_KEY, FIRST_CLIENT_SECRET, SECOND_CLIENT_SECRET];

  beforeAll(async () => {
    if (skip) return;
    storeLine = await store();
    gateway = await startGateway(config(storeLine, FIRST_ADMIN_TOKEN, FIRST_PROVIDER_KEY, FIRST_CLIENT_SECRET));
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it.skipIf(skip)('after keys are made, rotated and revoked, an admin token made and revoked, the config reloaded with a new admin token, provider key and client secret, and a drill run, no secret is anywhere in the audit table', async () => {
    const first = { token: FIRST_ADMIN_TOKEN };
    const keys = [];
    for (const name of ['service', 'person']) keys.push(await createKey(gateway.url, FIRST_ADMIN_TOKEN, { name, limits: { rpm: 10 } }));
    secrets.push(...keys.map((key) => key.key));
    const rotated = await adminCall(gateway.url, 'POST', `/admin/keys/${keys[1]!.id}/rotate`, { ...first, body: { overlap_s: 60 } });
    expect(rotated.status, rotated.text).toBe(201);
    secrets.push(rotated.body.key as string);
    const token = await adminCall(gateway.url, 'POST', '/admin/tokens', { ...first, body: { name: 'on-call', role: 'auditor' } });
    expect(token.status, token.text).toBe(201);
    secrets.push(token.body.token as string);
    expect((await adminCall(gateway.url, 'DELETE', `/admin/tokens/${token.body.id as string}`, first)).status).toBe(200);
    expect((await fetch(`${gateway.url}/admin/keys/${keys[0]!.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${FIRST_ADMIN_TOKEN}` } })).status).toBe(200);
    gateway.writeConfig(config(storeLine, SECOND_ADMIN_TOKEN, SECOND_PROVIDER_KEY, SECOND_CLIENT_SECRET));
    expect(gateway.configSource.reload()).toEqual([]);
    expect((await fetch(`${gateway.url}/admin/drills`, { method: 'POST', headers: { authorization: `Bearer ${SECOND_ADMIN_TOKEN}` } })).status).toBe(200);
    await eventually(async () => rowsOf(await auditRows(gateway.url, SECOND_ADMIN_TOKEN), 'config.reload').length === 1, 10_000, 'the reload row');

    const actions = (await auditRows(gateway.url, SECOND_ADMIN_TOKEN)).map((row) => row.action).sort();
    expect(actions).toEqual(['config.reload', 'drill.run', 'key.create', 'key.create', 'key.revoke', 'key.rotate', 'token.create', 'token.revoke']);
    const dump = JSON.stringify(await rawSql(storeLine, 'SELECT * FROM audit ORDER BY seq'));
    expect(secrets).toHaveLength(10);
    for (const secret of secrets) expect(dump, 'a secret in the audit table').not.toContain(secret);
  });
});
