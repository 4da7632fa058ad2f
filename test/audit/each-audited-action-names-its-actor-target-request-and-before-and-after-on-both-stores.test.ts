import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CanaryRun } from '../../src/admin/admin-api-types.js';
import { SECRET_VALUE } from '../../src/config/config-changes.js';
import type { DrillRun } from '../../src/drills/drill-run.js';
import { canaryDirectory, MOCK_REFERENCE, writePrompts } from '../scenario/canary-helpers.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { bothStoresForThisFile } from '../support/both-stores.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { keysAuth } from '../support/virtual-keys.js';
import { auditRows, rowsOf } from './audit-helpers.js';

const ADMIN_TOKEN = 'audit-actions-admin-token';
const stores = bothStoresForThisFile('audit_actions');
const directory = canaryDirectory();
afterAll(() => directory.remove());
const prompts = writePrompts(directory.path, 'support.jsonl', [{ question: 'q', reference: MOCK_REFERENCE }]);

interface Settings {
  retries: number;
  providerKey: string;
  drillsEvery: number;
  canaryEvery: number;
}

const INITIAL: Settings = { retries: 1, providerKey: 'mock-provider-key-one', drillsEvery: 0, canaryEvery: 0 };

function configWith(store: string, settings: Settings): string {
  return `
${store}
${keysAuth(ADMIN_TOKEN)}
connections:
  mock-openai: { provider: mock, dialect: openai, api_key: ${settings.providerKey} }
routes:
  support: { retries: ${settings.retries}, targets: [{ connection: mock-openai, model: gpt-support }] }
drills: { interval_s: ${settings.drillsEvery} }
canaries:
  support: { interval_s: ${settings.canaryEvery}, prompts: "${prompts}" }
`;
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
const TOKEN_ACTOR = { kind: 'token', id: 'admin.token', name: 'admin.token', role: 'admin' };
const GATEWAY_ACTOR = { kind: 'system', id: 'gateway', name: 'gateway', role: 'admin' };

describe.each(stores)('on a $name store', ({ skip, store }) => {
  let gateway: TestGateway;
  let storeLine: string;

  beforeAll(async () => {
    if (skip) return;
    storeLine = await store();
    gateway = await startGateway(configWith(storeLine, INITIAL));
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${gateway.url}${path}`, { method, headers: admin, ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: AbortSignal.timeout(30_000) });

  it.skipIf(skip)('a key made and revoked twice through the admin API is one key.create and one key.revoke row, by the admin token, with the request id, ip, and the key before and after — never its secret', async () => {
    const created = await call('POST', '/admin/keys', { name: 'audited', limits: { rpm: 5 } });
    expect(created.status).toBe(201);
    const key = (await created.json()) as { id: string; key: string };
    const revoked = await call('DELETE', `/admin/keys/${key.id}`);
    expect((await call('DELETE', `/admin/keys/${key.id}`)).status).toBe(200);

    const rows = await auditRows(gateway.url, ADMIN_TOKEN, `target=${key.id}`);
    expect(rows.map((row) => row.action)).toEqual(['key.revoke', 'key.create']);
    const [revokeRow, createRow] = rows;
    expect(createRow).toMatchObject({
      actor: TOKEN_ACTOR,
      target: { kind: 'key', id: key.id },
      before: null,
      after: { id: key.id, name: 'audited', limits: { rpm: 5 }, status: 'active', revoked_at: null },
      request_id: created.headers.get('x-request-id'),
      source_ip: expect.stringMatching(/127\.0\.0\.1$/),
    });
    expect(revokeRow).toMatchObject({
      actor: TOKEN_ACTOR,
      before: { id: key.id, status: 'active', revoked_at: null },
      after: { id: key.id, status: 'revoked', revoked_at: expect.any(String) },
      request_id: revoked.headers.get('x-request-id'),
    });
    expect(revokeRow!.seq).toBe(createRow!.seq + 1);
    expect(JSON.stringify(rows)).not.toContain(key.key);
  });

  it.skipIf(skip)('a drill and a canary run asked for through the admin API are rows of the caller, naming the run and how it went', async () => {
    const drill = await call('POST', '/admin/drills', { route: 'support' });
    expect(drill.status).toBe(200);
    const run = (await drill.json()) as DrillRun;
    const canary = await call('POST', '/admin/canaries', { route: 'support' });
    expect(canary.status).toBe(200);
    const [canaryRun] = ((await canary.json()) as { data: CanaryRun[] }).data;

    const rows = await auditRows(gateway.url, ADMIN_TOKEN);
    expect(rowsOf(rows, 'drill.run')).toEqual([
      expect.objectContaining({
        actor: TOKEN_ACTOR,
        target: { kind: 'drill', id: run.id },
        before: null,
        after: { id: run.id, route: 'support', routes: ['support'], started_at: run.started_at, finished_at: run.finished_at, steps: run.steps.length, failed: 0, skipped: 0, cut_short: false },
        request_id: drill.headers.get('x-request-id'),
      }),
    ]);
    expect(rowsOf(rows, 'canary.run')).toEqual([
      expect.objectContaining({
        actor: TOKEN_ACTOR,
        target: { kind: 'canary', id: canaryRun!.id },
        after: expect.objectContaining({ id: canaryRun!.id, route: 'support', score: canaryRun!.score, dropped: false, prompts: 1 }),
        request_id: canary.headers.get('x-request-id'),
      }),
    ]);
  });

  it.skipIf(skip)('an accepted reload is a config.reload row of the gateway with the paths it changed, a secret-bearing one by its path alone; a rejected reload or an unchanged file is none', async () => {
    gateway.writeConfig(configWith(storeLine, { ...INITIAL, retries: 2, providerKey: 'mock-provider-key-two' }));
    expect(gateway.configSource.reload()).toEqual([]);
    await eventually(async () => rowsOf(await auditRows(gateway.url, ADMIN_TOKEN), 'config.reload').length === 1, 10_000, 'the reload row');
    // Nothing changed, then nothing could be loaded: neither is a change.
    expect(gateway.configSource.reload()).toEqual([]);
    gateway.writeConfig('routes: [not, a, mapping]');
    expect(gateway.configSource.reload()).not.toEqual([]);
    gateway.writeConfig(configWith(storeLine, { ...INITIAL, retries: 3, providerKey: 'mock-provider-key-two' }));
    expect(gateway.configSource.reload()).toEqual([]);
    // Events are written in order: once the last reload's row is in, the others would be too.
    await eventually(async () => rowsOf(await auditRows(gateway.url, ADMIN_TOKEN), 'config.reload').length >= 2, 10_000, 'the last reload row');

    const reloads = rowsOf(await auditRows(gateway.url, ADMIN_TOKEN), 'config.reload');
    expect(reloads).toHaveLength(2);
    expect(reloads[1]).toMatchObject({
      actor: GATEWAY_ACTOR,
      target: { kind: 'config', id: gateway.configSource.file },
      before: { 'routes.support.retries': 1, 'connections.mock-openai.api_key': SECRET_VALUE },
      after: { 'routes.support.retries': 2, 'connections.mock-openai.api_key': SECRET_VALUE },
      request_id: null,
      source_ip: null,
    });
    expect(reloads[0]).toMatchObject({ before: { 'routes.support.retries': 2 }, after: { 'routes.support.retries': 3 } });
    expect(JSON.stringify(reloads)).not.toMatch(/mock-provider-key-(one|two)/);
  });

  it.skipIf(skip)('a scheduled drill and a scheduled canary run are rows of the gateway itself', async () => {
    gateway.writeConfig(configWith(storeLine, { ...INITIAL, retries: 3, providerKey: 'mock-provider-key-two', drillsEvery: 1, canaryEvery: 1 }));
    expect(gateway.configSource.reload()).toEqual([]);
    const byGateway = async () => (await auditRows(gateway.url, ADMIN_TOKEN, 'actor=gateway')).map((row) => row.action);
    await eventually(async () => (await byGateway()).includes('drill.run') && (await byGateway()).includes('canary.run'), 20_000, 'a scheduled drill and canary row');
    const rows = await auditRows(gateway.url, ADMIN_TOKEN, 'actor=gateway');
    for (const action of ['drill.run', 'canary.run'] as const) {
      expect(rowsOf(rows, action).at(-1)).toMatchObject({ actor: GATEWAY_ACTOR, request_id: null, source_ip: null, after: { route: action === 'drill.run' ? null : 'support' } });
    }
  });
});
