import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { deploymentHealth } from '../scenario/health-helpers.js';
import { ADMIN_TOKEN, hello } from '../scenario/scenario-helpers.js';
import { drill } from './drill-helpers.js';

// The primary's key is refused once (`times=1`), then works again: only a real request can tell.
const PRIMARY_MODEL = 'primary-back?status=401&times=1';
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
drills: { interval_s: 0 }
health: { probe_interval_s: 3600 }
connections:
  flaky-key: { provider: mock, dialect: openai }
  spare: { provider: mock, dialect: anthropic }
routes:
  comes-back:
    targets:
      - { connection: flaky-key, model: "${PRIMARY_MODEL}" }
      - { connection: spare, model: spare-back }
`);
});
afterAll(async () => {
  await gateway.close();
});

it('a drill step that succeeds on a structural target re-admits it, and callers go back to it', async () => {
  const first = await postChat(gateway.url, { model: 'comes-back', messages: hello });
  expect(first.status).toBe(200);
  expect(first.headers.get('x-switchyard-served-by')).toBe('spare/spare-back');
  expect(await deploymentHealth(gateway.url, `flaky-key/${PRIMARY_MODEL}`)).toMatchObject({ state: 'structural', structural_cause: 'credential' });
  // Callers are kept from it meanwhile.
  const second = await postChat(gateway.url, { model: 'comes-back', messages: hello });
  expect(second.headers.get('x-switchyard-served-by')).toBe('spare/spare-back');
  expect(gateway.mock.attemptsFor('primary-back')).toHaveLength(1);

  const run = await drill(gateway.url, 'comes-back');
  expect(run.steps[0]).toMatchObject({ step: 'target', position: 1, connection: 'flaky-key', result: 'ok' });
  const readmitted = await deploymentHealth(gateway.url, `flaky-key/${PRIMARY_MODEL}`);
  expect(readmitted.state).toBe('healthy');
  expect(readmitted.reason).toMatch(/readmitted/);

  const third = await postChat(gateway.url, { model: 'comes-back', messages: hello });
  expect(third.status).toBe(200);
  expect(third.headers.get('x-switchyard-served-by')).toBe(`flaky-key/${PRIMARY_MODEL}`);
});
