import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { hello, metricValue, metricsText } from '../scenario-helpers.js';

let gateway: TestGateway;

const EJECTED = 'mock-openai/metrics-eject?status=503';
const REJECTED_KEY = 'mock-anthropic/metrics-badkey?status=401';

beforeAll(async () => {
  // Three connections: a credential fault takes its whole connection out, so the standby has its own.
  gateway = await startGateway(`
connections:
  mock-openai: { provider: mock, dialect: openai }
  mock-anthropic: { provider: mock, dialect: anthropic }
  mock-standby: { provider: mock, dialect: openai }
routes:
  ejecting:
    retries: 0
    health: { consecutive_failures: 2, eject_base_s: 30 }
    targets:
      - { connection: mock-openai, model: "metrics-eject?status=503" }
      - { connection: mock-standby, model: metrics-standby }
  bad-key:
    targets:
      - { connection: mock-anthropic, model: "metrics-badkey?status=401" }
      - { connection: mock-standby, model: metrics-standby }
`);
});
afterAll(() => gateway.close());

const ask = async (model: string) => {
  const response = await postChat(gateway.url, { model, messages: hello });
  await response.text();
  return response;
};

it('an ejection shows in switchyard_deployment_state and switchyard_ejections_total', async () => {
  for (let n = 1; n <= 2; n++) expect((await ask('ejecting')).status).toBe(200);
  expect(gateway.mock.attemptsFor('metrics-eject')).toHaveLength(2);

  const text = await metricsText(gateway.url);
  expect(metricValue(text, 'switchyard_deployment_state', { deployment: EJECTED, state: 'ejected' })).toBe(1);
  expect(metricValue(text, 'switchyard_deployment_state', { deployment: EJECTED, state: 'healthy' })).toBe(0);
  // Exactly one state is current.
  expect(metricValue(text, 'switchyard_deployment_state', { deployment: EJECTED })).toBe(1);
  expect(metricValue(text, 'switchyard_ejections_total', { deployment: EJECTED })).toBeGreaterThanOrEqual(1);
});

it('a structural fault shows in switchyard_structural_faults_total with its cause, and in the state gauge', async () => {
  const response = await ask('bad-key');
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-standby/metrics-standby');
  expect(gateway.mock.attemptsFor('metrics-badkey')).toHaveLength(1);

  const text = await metricsText(gateway.url);
  expect(metricValue(text, 'switchyard_structural_faults_total', { deployment: REJECTED_KEY, cause: 'credential' })).toBeGreaterThanOrEqual(1);
  expect(metricValue(text, 'switchyard_deployment_state', { deployment: REJECTED_KEY, state: 'structural' })).toBe(1);
  expect(metricValue(text, 'switchyard_deployment_state', { deployment: REJECTED_KEY })).toBe(1);
  // A credential fault is not an ejection.
  expect(metricValue(text, 'switchyard_ejections_total', { deployment: REJECTED_KEY }) ?? 0).toBe(0);
  // The standby on its own connection is untouched.
  expect(metricValue(text, 'switchyard_structural_faults_total', { deployment: 'mock-standby/metrics-standby' }) ?? 0).toBe(0);
});
