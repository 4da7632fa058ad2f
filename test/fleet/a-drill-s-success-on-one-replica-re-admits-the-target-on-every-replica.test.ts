import { expect, it } from 'vitest';
import type { DrillRun } from '../../src/drills/drill-run.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { adminCall, chat, createFleetKey, fleetForThisFile, healthOf } from './fleet-helpers.js';

// The key is refused once (`times=1`), then works again: only a real request can tell.
const FLAKY = 'gpt-key-back?status=401&times=1';

const fleet = fleetForThisFile({
  replicas: 2,
  yaml: (mockUrl) => `drills: { interval_s: 0 }
health: { probe_interval_s: 3600 }
connections:
  flaky: { provider: mock, base_url: "${mockUrl}" }
  spare: { provider: mock, base_url: "${mockUrl}" }
routes:
  r:
    targets:
      - { connection: flaky, model: "${FLAKY}" }
      - { connection: spare, model: gpt-spare-back }`,
});

it.skipIf(!fleet.available)('a structural target re-admitted by a drill on one replica is back on the other within a second', async () => {
  const [first, second] = fleet.fleet().replicas;
  const { key } = await createFleetKey(first!.url, { name: 'readmit' });
  expect((await chat(first!.url, key)).headers.get('x-switchyard-served-by')).toBe('spare/gpt-spare-back');
  for (const replica of [first!, second!]) {
    await eventually(async () => (await healthOf(replica.url, `flaky/${FLAKY}`)).state === 'structural', 2_000, `${replica.url} seeing the fault`);
  }

  const run = await adminCall<DrillRun>(second!.url, 'POST', '/admin/drills', { route: 'r' });
  expect(run.steps[0]).toMatchObject({ step: 'target', position: 1, connection: 'flaky', result: 'ok' });
  expect((await healthOf(second!.url, `flaky/${FLAKY}`)).state).toBe('healthy');
  await eventually(async () => (await healthOf(first!.url, `flaky/${FLAKY}`)).state === 'healthy', 1_000, 'the first replica to see the readmission');
  expect((await chat(first!.url, key)).headers.get('x-switchyard-served-by')).toBe(`flaky/${FLAKY}`);
}, 90_000);
