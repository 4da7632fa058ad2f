import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { deploymentHealth } from '../health-helpers.js';
import { ADMIN_TOKEN, eventually, hello } from '../scenario-helpers.js';

let gateway: TestGateway;

// The model is not found once (a deployment not yet rolled out); the provider then serves it.
const MODEL = 'claude-rolling-out?status=404&times=1';
const DEPLOYMENT = `primary/${MODEL}`;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
health: { probe_interval_s: 1 }
connections:
  primary: { provider: mock, dialect: anthropic }
  standby: { provider: mock, dialect: openai }
routes:
  rolling-out-route:
    targets:
      - { connection: primary, model: "${MODEL}" }
      - { connection: standby, model: standby-model }
`);
});
afterAll(() => gateway.close());

it('after a probe readmits a deployment, /admin/health says it was readmitted by the probe, and since the probe', async () => {
  const response = await postChat(gateway.url, { model: 'rolling-out-route', messages: hello });
  await response.text();
  expect(response.headers.get('x-switchyard-served-by')).toBe('standby/standby-model');
  const faulted = await deploymentHealth(gateway.url, DEPLOYMENT);
  expect(faulted).toMatchObject({ state: 'structural', structural_cause: 'not_found', reason: 'model not found' });

  await eventually(async () => (await deploymentHealth(gateway.url, DEPLOYMENT)).state === 'healthy', 5_000, `${DEPLOYMENT} healthy again`);
  const readmitted = await deploymentHealth(gateway.url, DEPLOYMENT);
  expect(readmitted.reason).toBe('readmitted by a successful active probe (was: model not found)');
  // Since the probe's answer: after the fault, and after the probe reached the provider.
  const [fault, probe] = gateway.mock.attemptsFor('claude-rolling-out');
  expect(probe!.outcome).toBe('ok');
  expect(probe!.body).toMatchObject({ max_tokens: 1 });
  expect(Date.parse(readmitted.since!)).toBeGreaterThanOrEqual(probe!.atMs);
  expect(Date.parse(readmitted.since!)).toBeGreaterThan(Date.parse(faulted.since!));
  expect(Date.parse(faulted.since!)).toBeGreaterThanOrEqual(fault!.atMs);
});
