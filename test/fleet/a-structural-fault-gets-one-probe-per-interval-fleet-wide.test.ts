import { expect, it } from 'vitest';
import { eventually } from '../scenario/scenario-helpers.js';
import { chat, createFleetKey, fleetForThisFile, healthOf } from './fleet-helpers.js';

const WATCH_MS = 4_500;

// A connection whose key the provider rejects: structural until a probe succeeds (none will).
const fleet = fleetForThisFile({
  replicas: 3,
  yaml: (mockUrl) => `health: { probe_interval_s: 1 }
connections:
  rejected: { provider: mock, base_url: "${mockUrl}" }
  spare: { provider: mock, base_url: "${mockUrl}" }
routes:
  r:
    targets:
      - { connection: rejected, model: "gpt-rejected?status=401" }
      - { connection: spare, model: gpt-spare }`,
});

it.skipIf(!fleet.available)('a structural deployment is probed once per probe interval across three replicas, not once per replica', async () => {
  const replicas = fleet.fleet().replicas;
  const { key } = await createFleetKey(replicas[0]!.url, { name: 'structural' });
  const answer = await chat(replicas[0]!.url, key);
  expect(answer.status).toBe(200);
  expect(answer.headers.get('x-switchyard-served-by')).toBe('spare/gpt-spare');
  const faultedAtMs = Date.now();
  for (const replica of replicas) {
    await eventually(async () => (await healthOf(replica.url, 'rejected/gpt-rejected?status=401')).state === 'structural', 1_000, `${replica.url} seeing the fault`);
  }

  // Probes run on their own timer: watch a few intervals go by.
  await new Promise((resolve) => setTimeout(resolve, faultedAtMs + WATCH_MS - Date.now()));
  const probes = fleet.mock().attemptsFor('gpt-rejected').slice(1);
  // About one per second fleet-wide (4 in 4.5 s, one more at an interval's edge); one per replica would be ~12.
  expect(probes.length).toBeGreaterThanOrEqual(2);
  expect(probes.length).toBeLessThanOrEqual(5);
  for (const replica of replicas) expect(await healthOf(replica.url, 'rejected/gpt-rejected?status=401')).toMatchObject({ state: 'structural' });
}, 60_000);
