import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/core/request-record.js';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { deploymentHealth, startAlertWebhook, type AlertWebhook } from '../health-helpers.js';
import { ADMIN_TOKEN, eventually, hello } from '../scenario-helpers.js';

let gateway: TestGateway;
let webhook: AlertWebhook;

// The key is rejected once (401), then the provider accepts it again (the key was rotated back).
const MODEL_A = 'claude-a?status=401&times=1';
const DEPLOYMENT_A = `conn-a/${MODEL_A}`;

beforeAll(async () => {
  webhook = await startAlertWebhook();
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
health: { probe_interval_s: 1 }
alerts: { webhook_url: "${webhook.url}" }
connections:
  conn-a: { provider: mock, dialect: anthropic }
  conn-b: { provider: mock, dialect: openai }
routes:
  keyed:
    targets:
      - { connection: conn-a, model: "${MODEL_A}" }
      - { connection: conn-b, model: standby-b }
`);
});
afterAll(async () => {
  await gateway.close();
  await webhook.close();
});

const ask = () => postChat(gateway.url, { model: 'keyed', messages: hello });

async function listRecords(): Promise<RequestRecord[]> {
  const response = await fetch(`${gateway.url}/admin/requests?origin=all&limit=50`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    signal: AbortSignal.timeout(5_000),
  });
  if (response.status !== 200) throw new Error(`GET /admin/requests → ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { data: RequestRecord[] }).data;
}

it('a 401 puts the connection in a structural state (skipped, alerted) until an active probe succeeds', async () => {
  // 1. The rejected key fails over to the standby.
  const first = await ask();
  await first.text();
  expect(first.status).toBe(200);
  expect(first.headers.get('x-switchyard-served-by')).toBe('conn-b/standby-b');
  expect(first.headers.get('x-switchyard-attempts')).toBe('2');
  expect(gateway.mock.attemptsFor('claude-a')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('claude-a')[0]!.outcome).toBe('status 401');
  expect(gateway.mock.attemptsFor('standby-b')).toHaveLength(1);

  // 2. The connection is out: the next request goes straight to the standby.
  const second = await ask();
  await second.text();
  expect(second.status).toBe(200);
  expect(second.headers.get('x-switchyard-served-by')).toBe('conn-b/standby-b');
  expect(second.headers.get('x-switchyard-attempts')).toBe('1');
  expect(gateway.mock.attemptsFor('claude-a')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('standby-b')).toHaveLength(2);

  // /admin/health says why (checked before the first probe can be due, 1 s after the fault).
  const faulted = await deploymentHealth(gateway.url, DEPLOYMENT_A);
  expect(faulted).toMatchObject({ state: 'structural', structural_cause: 'credential', last_error: { kind: 'credential' } });
  expect(faulted.reason).toEqual(expect.any(String));
  expect(faulted.reason.length).toBeGreaterThan(0);
  expect(faulted.since).toEqual(expect.any(String));
  expect(faulted.next_probe_at).toEqual(expect.any(String));

  // The webhook heard of it: a JSON alert naming the deployment, the transition and since when.
  await eventually(() => webhook.alerts.some((alert) => alert.type === 'structural'), 3_000, 'a structural alert');
  const structural = webhook.alerts.find((alert) => alert.type === 'structural')!;
  expect(structural).toMatchObject({ deployment: DEPLOYMENT_A, connection: 'conn-a', old_state: 'healthy', new_state: 'structural' });
  expect(structural.reason).toEqual(expect.any(String));
  expect(Number.isNaN(Date.parse(structural.since))).toBe(false);
  expect(Math.abs(Date.parse(structural.since) - gateway.mock.attemptsFor('claude-a')[0]!.atMs)).toBeLessThan(2_000);
  expect(webhook.unparsable).toEqual([]);

  // 3. The active probe (every probe_interval_s = 1 s) finds the key works again and re-admits it.
  await eventually(async () => (await deploymentHealth(gateway.url, DEPLOYMENT_A)).state === 'healthy', 5_000, `${DEPLOYMENT_A} healthy again`);
  const readmittedHealth = await deploymentHealth(gateway.url, DEPLOYMENT_A);
  expect(readmittedHealth.structural_cause ?? null).toBeNull();
  expect(readmittedHealth.next_probe_at ?? null).toBeNull();

  // The probe was a minimal real completion (one output token), and the only other contact with A.
  const contacts = gateway.mock.attemptsFor('claude-a');
  expect(contacts).toHaveLength(2);
  expect(contacts[1]!.outcome).toBe('ok');
  expect(contacts[1]!.body).toMatchObject({ max_tokens: 1 });
  expect(contacts[1]!.atMs - contacts[0]!.atMs).toBeGreaterThanOrEqual(1_000);

  await eventually(() => webhook.alerts.some((alert) => alert.type === 'readmitted'), 3_000, 'a readmitted alert');
  const readmitted = webhook.alerts.find((alert) => alert.type === 'readmitted')!;
  expect(readmitted).toMatchObject({ deployment: DEPLOYMENT_A, connection: 'conn-a', old_state: 'structural' });
  expect(readmitted.new_state).not.toBe('structural');
  expect(Number.isNaN(Date.parse(readmitted.since))).toBe(false);

  // The probe is a record of its own, marked as a probe, that reached A and succeeded.
  const probes = (await listRecords()).filter((record) => record.probe === true);
  expect(probes).toHaveLength(1);
  expect(probes[0]).toMatchObject({ status: 'ok', served: { connection: 'conn-a' } });
  expect(probes[0]!.attempts).toHaveLength(1);
  expect(probes[0]!.attempts[0]).toMatchObject({ connection: 'conn-a', model: MODEL_A, kind: 'ok' });

  // 4. A serves again.
  const third = await ask();
  await third.text();
  expect(third.status).toBe(200);
  expect(third.headers.get('x-switchyard-served-by')).toBe(DEPLOYMENT_A);
  expect(third.headers.get('x-switchyard-attempts')).toBe('1');
  expect(gateway.mock.attemptsFor('claude-a')).toHaveLength(3);
  expect(gateway.mock.attemptsFor('standby-b')).toHaveLength(2);
});
