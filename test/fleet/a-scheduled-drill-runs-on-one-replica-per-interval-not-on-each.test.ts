import { expect, it } from 'vitest';
import type { DrillRun } from '../../src/drills/drill-run.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { adminCall, fleetForThisFile } from './fleet-helpers.js';

const INTERVAL_S = 2;
const WATCH_MS = 8_500;

// A route of one target: each drill run is one request, so the mock counts the runs.
const fleet = fleetForThisFile({
  replicas: 2,
  yaml: (mockUrl) => `drills: { interval_s: ${INTERVAL_S} }
connections:
  mock: { provider: mock, base_url: "${mockUrl}" }
routes:
  r: { targets: [{ connection: mock, model: fleet-drilled }] }`,
});

it.skipIf(!fleet.available)('with two replicas on Redis a scheduled drill runs once per interval fleet-wide, and either replica shows the latest run', async () => {
  const [first, second] = fleet.fleet().replicas;
  const watchStart = fleet.mock().attempts.length;
  // Schedules run on their own timers: watch a few intervals go by.
  await new Promise((resolve) => setTimeout(resolve, WATCH_MS));
  const runs = fleet.mock().attemptsFor('fleet-drilled').filter((attempt) => attempt.n > watchStart);
  // About one per interval fleet-wide (4 in 8.5 s, one more at an interval's edge); one per replica would be ~8.
  expect(runs.length).toBeGreaterThanOrEqual(2);
  expect(runs.length).toBeLessThanOrEqual(5);

  // The latest run is kept in Redis: both replicas answer with the same one.
  await eventually(
    async () => {
      const [fromFirst, fromSecond] = await Promise.all([adminCall<DrillRun>(first!.url, 'GET', '/admin/drills'), adminCall<DrillRun>(second!.url, 'GET', '/admin/drills')]);
      return fromFirst.id === fromSecond.id && fromFirst.finished_at !== null && fromFirst.steps.length === 1;
    },
    5_000,
    'both replicas to show the same finished run',
  );
}, 90_000);
