import { expect, it } from 'vitest';
import { eventually } from '../scenario/scenario-helpers.js';
import { chat, createFleetKey, fleetForThisFile, healthOf, mockConnectionYaml } from './fleet-helpers.js';

const EJECT_MS = 2_000;

const fleet = fleetForThisFile({
  replicas: 3,
  yaml: (mockUrl) => `${mockConnectionYaml(mockUrl)}
routes:
  r:
    retries: 0
    # No recovery probes: the caller trial is what this test counts (the probes have their own test).
    health: { consecutive_failures: 3, eject_base_s: ${EJECT_MS / 1000}, recovery_probe_s: 0 }
    targets:
      - { connection: mock, model: "gpt-down?status=503" }
      - { connection: mock, model: gpt-standby }`,
});

it.skipIf(!fleet.available)('when the ejection time is up, exactly one trial request reaches the failing deployment across three replicas', async () => {
  const replicas = fleet.fleet().replicas;
  const { key } = await createFleetKey(replicas[0]!.url, { name: 'trial' });
  // Every replica serves the route (one failure each, short of tripping), as in a busy fleet.
  for (const replica of replicas.slice(1)) expect((await chat(replica.url, key)).status).toBe(200);
  for (let index = 0; index < 3; index++) expect((await chat(replicas[0]!.url, key)).status).toBe(200);
  const ejectedAtMs = Date.now();
  for (const replica of replicas) {
    await eventually(async () => (await healthOf(replica.url, 'mock/gpt-down?status=503')).state === 'ejected', 1_000, `${replica.url} seeing the ejection`);
  }
  const beforeTrial = fleet.mock().attemptsFor('gpt-down').length;
  expect(beforeTrial).toBe(replicas.length - 1 + 3);

  // The ejection is a timer the test has to outlast; nothing in the background is awaited here.
  await new Promise((resolve) => setTimeout(resolve, ejectedAtMs + EJECT_MS + 200 - Date.now()));
  const answers = await Promise.all(Array.from({ length: 9 }, (_, index) => chat(replicas[index % replicas.length]!.url, key)));
  expect(answers.map((answer) => answer.status)).toEqual(Array(9).fill(200));
  // One trial, fleet-wide; it failed, so the deployment is out again and the rest went to the standby.
  expect(fleet.mock().attemptsFor('gpt-down')).toHaveLength(beforeTrial + 1);
  expect(answers.filter((answer) => answer.headers.get('x-switchyard-served-by') === 'mock/gpt-standby')).toHaveLength(9);
  for (const replica of replicas) expect(await healthOf(replica.url, 'mock/gpt-down?status=503')).toMatchObject({ state: 'ejected' });
}, 60_000);
