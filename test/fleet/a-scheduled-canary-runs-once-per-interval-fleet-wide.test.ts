import { afterAll, expect, it } from 'vitest';
import type { CanaryRun } from '../../src/canaries/canary-run.js';
import { canaryDirectory, MOCK_REFERENCE, writePrompts } from '../scenario/canary-helpers.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { adminCall, fleetForThisFile } from './fleet-helpers.js';

const WATCH_MS = 4_500;
const directory = canaryDirectory();
const prompts = writePrompts(directory.path, 'fleet.jsonl', [{ question: 'q', reference: MOCK_REFERENCE }]);
afterAll(() => directory.remove());

const fleet = fleetForThisFile({
  yaml: (mockUrl) => `connections:
  mock-openai: { provider: mock, base_url: "${mockUrl}" }
routes:
  fleet-route:
    targets: [{ connection: mock-openai, model: gpt-fleet-canary }]
canaries:
  fleet-route: { interval_s: 1, prompts: "${prompts}", baseline: 1 }`,
});

it.skipIf(!fleet.available)('a scheduled canary runs once per interval across two replicas (a lease in Redis), not once per replica, and both list the same runs', async () => {
  const attempts = () => fleet.mock().attemptsFor('gpt-fleet-canary').length;
  await eventually(() => attempts() >= 1, 10_000, 'the first scheduled canary run');
  const firstAtMs = Date.now();
  const before = attempts();
  // Schedules run on their own timer: watch a few intervals go by.
  await new Promise((resolve) => setTimeout(resolve, firstAtMs + WATCH_MS - Date.now()));
  const during = attempts() - before;
  // About one run per second fleet-wide (4 in 4.5 s, one more at an interval's edge); one per replica would be ~9.
  expect(during).toBeGreaterThanOrEqual(2);
  expect(during).toBeLessThanOrEqual(6);

  const [first, second] = fleet.fleet().replicas;
  type Listed = { data: { route: string; latest: CanaryRun[] }[] };
  const listedBy = async (url: string) => ((await adminCall<Listed>(url, 'GET', '/admin/canaries')).data[0]!.latest.map((run) => run.id));
  await eventually(async () => JSON.stringify(await listedBy(first!.url)) === JSON.stringify(await listedBy(second!.url)), 3_000, 'both replicas to list the same runs');
  expect((await listedBy(first!.url)).length).toBeGreaterThanOrEqual(before + during - 1);
}, 60_000);
