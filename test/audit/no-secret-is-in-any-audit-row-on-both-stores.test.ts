import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../scenario/scenario-helpers.js';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { createKey } from '../support/virtual-keys.js';
import { auditRows, rawSql, rowsOf } from './audit-helpers.js';

const FIRST_ADMIN_TOKEN = 'audit-secrets-first-admin-token';
const SECOND_ADMIN_TOKEN = 'audit-secrets-second-admin-token';
const FIRST_PROVIDER_KEY = 'sk-audit-secrets-first-provider-key';
const SECOND_PROVIDER_KEY = 'sk-audit-secrets-second-provider-key';
const stores = bothStoresForThisFile('audit_secrets');

const config = (store: string, adminToken: string, providerKey: string) => `
${store}
auth: { mode: keys }
admin: { token: ${adminToken} }
connections:
  mock-openai: { provider: mock, dialect: openai, api_key: ${providerKey} }
routes:
  support: { targets: [{ connection: mock-openai, model: gpt-support }] }
`;

describe.each(stores)('on a $name store', ({ skip, store }) => {
  let gateway: TestGateway;
  let storeLine: string;
  /**
   * Every secret the gateway was given or handed out below. When a change that holds a secret
   * becomes audited (an admin API token made, a sign-in through the identity provider), add the
   * step that makes it here and its secret to this list.
   */
  const secrets: string[] = [FIRST_ADMIN_TOKEN, SECOND_ADMIN_TOKEN, FIRST_PROVIDER_KEY, SECOND_PROVIDER_KEY];

  beforeAll(async () => {
    if (skip) return;
    storeLine = await store();
    gateway = await startGateway(config(storeLine, FIRST_ADMIN_TOKEN, FIRST_PROVIDER_KEY));
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it.skipIf(skip)('after keys are made and revoked, the config reloaded with a new admin token and provider key, and a drill run, no secret is anywhere in the audit table', async () => {
    const keys = [];
    for (const name of ['service', 'person']) keys.push(await createKey(gateway.url, FIRST_ADMIN_TOKEN, { name, limits: { rpm: 10 } }));
    secrets.push(...keys.map((key) => key.key));
    expect((await fetch(`${gateway.url}/admin/keys/${keys[0]!.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${FIRST_ADMIN_TOKEN}` } })).status).toBe(200);
    gateway.writeConfig(config(storeLine, SECOND_ADMIN_TOKEN, SECOND_PROVIDER_KEY));
    expect(gateway.configSource.reload()).toEqual([]);
    expect((await fetch(`${gateway.url}/admin/drills`, { method: 'POST', headers: { authorization: `Bearer ${SECOND_ADMIN_TOKEN}` } })).status).toBe(200);
    await eventually(async () => rowsOf(await auditRows(gateway.url, SECOND_ADMIN_TOKEN), 'config.reload').length === 1, 10_000, 'the reload row');

    const actions = (await auditRows(gateway.url, SECOND_ADMIN_TOKEN)).map((row) => row.action).sort();
    expect(actions).toEqual(['config.reload', 'drill.run', 'key.create', 'key.create', 'key.revoke']);
    const dump = JSON.stringify(await rawSql(storeLine, 'SELECT * FROM audit ORDER BY seq'));
    expect(secrets).toHaveLength(6);
    for (const secret of secrets) expect(dump, 'a secret in the audit table').not.toContain(secret);
  });
});
