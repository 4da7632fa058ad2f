import { expect, it } from 'vitest';
import { eventually } from '../scenario/scenario-helpers.js';
import { chat, createFleetKey, fleetForThisFile, healthOf, keepAsking, mockConnectionYaml, stateOf } from './fleet-helpers.js';

const fleet = fleetForThisFile({
  yaml: (mockUrl) => `${mockConnectionYaml(mockUrl)}
routes:
  r: { targets: [{ connection: mock, model: gpt-steady, price: { input_per_mtok: 1, output_per_mtok: 1 } }] }
  e:
    retries: 0
    health: { consecutive_failures: 2, eject_base_s: 30 }
    targets:
      - { connection: mock, model: "gpt-broken?status=503" }
      - { connection: mock, model: gpt-spare }`,
});

it.skipIf(!fleet.available)('with Redis killed mid-traffic every replica keeps answering 200 and says it is degraded; after Redis restarts an ejection propagates again', async () => {
  const replicas = fleet.fleet().replicas;
  // A rate limit and a budget, so every request goes through the gate that Redis backs.
  const { key } = await createFleetKey(replicas[0]!.url, { name: 'outage', limits: { rpm: 100_000 }, budget: { usd: 1_000, period: 'day' } });
  for (const replica of replicas) expect(await stateOf(replica.url)).toBe('shared');
  const traffic = replicas.map((replica) => keepAsking(replica.url, key));
  await eventually(() => traffic.every((loop) => loop.answers.length >= 3), 10_000, 'traffic on every replica');

  await fleet.redis().stop();
  for (const replica of replicas) await eventually(async () => (await stateOf(replica.url)) === 'degraded', 5_000, `${replica.url} saying it is degraded`);
  const countsAtOutage = traffic.map((loop) => loop.answers.length);
  await eventually(() => traffic.every((loop, index) => loop.answers.length >= countsAtOutage[index]! + 5), 10_000, 'traffic on every replica during the outage');

  await fleet.redis().start();
  for (const replica of replicas) await eventually(async () => (await stateOf(replica.url)) === 'shared', 10_000, `${replica.url} sharing state again`);
  const answers = (await Promise.all(traffic.map((loop) => loop.stop()))).flat();
  expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
  expect(fleet.mock().attemptsFor('gpt-steady')).toHaveLength(answers.length);

  // Shared again: an ejection made on A after the restart reaches B.
  const [a, b] = replicas;
  // B serves route e too (one failure of its own, short of tripping); then A trips it.
  expect((await chat(b!.url, key, { model: 'e' })).status).toBe(200);
  for (let index = 0; index < 2; index++) expect((await chat(a!.url, key, { model: 'e' })).status).toBe(200);
  expect(await healthOf(a!.url, 'mock/gpt-broken?status=503')).toMatchObject({ state: 'ejected' });
  await eventually(async () => (await healthOf(b!.url, 'mock/gpt-broken?status=503')).state === 'ejected', 1_000, 'replica B seeing the ejection made after the restart');
  expect(fleet.mock().attemptsFor('gpt-broken')).toHaveLength(3);
  const onB = await chat(b!.url, key, { model: 'e' });
  expect(onB.headers.get('x-switchyard-served-by')).toBe('mock/gpt-spare');
  expect(fleet.mock().attemptsFor('gpt-broken')).toHaveLength(3);
}, 90_000);
