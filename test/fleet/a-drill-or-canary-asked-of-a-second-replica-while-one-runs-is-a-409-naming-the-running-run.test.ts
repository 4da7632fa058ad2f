import { afterAll, expect, it } from 'vitest';
import type { DrillRun } from '../../src/drills/drill-run.js';
import { FLEET_ADMIN_TOKEN } from '../support/gateway-fleet.js';
import { canaryDirectory, MOCK_REFERENCE, writePrompts } from '../scenario/canary-helpers.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { adminCall, fleetForThisFile } from './fleet-helpers.js';

const directory = canaryDirectory();
const prompts = writePrompts(directory.path, 'slow.jsonl', [{ question: 'take your time', reference: MOCK_REFERENCE }]);
afterAll(() => directory.remove());

// Each route's one request takes about 1.5 s: long enough to ask the other replica meanwhile.
const fleet = fleetForThisFile({
  yaml: (mockUrl) => `drills: { interval_s: 0 }
connections:
  mock: { provider: mock, base_url: "${mockUrl}" }
routes:
  drilled: { targets: [{ connection: mock, model: "fleet-drilled?first_token_ms=1500" }] }
  canaried: { targets: [{ connection: mock, model: "fleet-canaried?headers_delay_ms=1500" }] }
canaries:
  canaried: { interval_s: 0, prompts: "${prompts}", baseline: 1 }`,
});

/** An admin POST whose status matters: the status and the parsed body. */
async function post(replicaUrl: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${replicaUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${FLEET_ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, body: await response.json() };
}

it.skipIf(!fleet.available)('a drill asked of one replica while another runs one is a 409 drill_running naming that run; once it ends, the second may run', async () => {
  const [first, second] = fleet.fleet().replicas;
  const running = post(first!.url, '/admin/drills', { route: 'drilled' });
  await eventually(() => fleet.mock().attemptsFor('fleet-drilled').length === 1, 10_000, 'the first drill to reach its target');
  const inProgress = await adminCall<DrillRun>(first!.url, 'GET', '/admin/drills');
  expect(inProgress.finished_at).toBeNull();

  const refused = await post(second!.url, '/admin/drills', { route: 'drilled' });
  expect(refused.status).toBe(409);
  expect(refused.body.error).toMatchObject({ code: 'drill_running', run_id: inProgress.id });
  expect(refused.body.error.message).toContain(inProgress.id);
  // The refused one sent nothing.
  expect(fleet.mock().attemptsFor('fleet-drilled')).toHaveLength(1);

  const finished = await running;
  expect(finished.status).toBe(200);
  expect(finished.body).toMatchObject({ id: inProgress.id, steps: [{ route: 'drilled', result: 'ok' }] });
  // The hold ended with the run: the other replica runs the next one.
  const next = await post(second!.url, '/admin/drills', { route: 'drilled' });
  expect(next.status).toBe(200);
  expect(next.body.id).not.toBe(inProgress.id);
  expect(fleet.mock().attemptsFor('fleet-drilled')).toHaveLength(2);
}, 60_000);

it.skipIf(!fleet.available)('a route’s canary asked of one replica while another runs it is a 409 canary_running naming that run; once it ends, the second may run', async () => {
  const [first, second] = fleet.fleet().replicas;
  const running = post(first!.url, '/admin/canaries', { route: 'canaried' });
  let runId: string | null = null;
  await eventually(
    async () => (runId = (await adminCall<{ data: { running: string | null }[] }>(first!.url, 'GET', '/admin/canaries')).data[0]!.running) !== null,
    10_000,
    'the canary to be running',
  );

  const refused = await post(second!.url, '/admin/canaries', { route: 'canaried' });
  expect(refused.status).toBe(409);
  expect(refused.body.error).toMatchObject({ code: 'canary_running', route: 'canaried', run_id: runId });
  // Every canary at once includes the running one: refused too.
  expect((await post(second!.url, '/admin/canaries')).status).toBe(409);
  expect(fleet.mock().attemptsFor('fleet-canaried')).toHaveLength(1);

  const finished = await running;
  expect(finished.status).toBe(200);
  expect(finished.body.data[0]).toMatchObject({ id: runId, route: 'canaried', score: 1 });
  const next = await post(second!.url, '/admin/canaries', { route: 'canaried' });
  expect(next.status).toBe(200);
  expect(fleet.mock().attemptsFor('fleet-canaried')).toHaveLength(2);
}, 60_000);
