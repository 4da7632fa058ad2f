import { expect, it } from 'vitest';
import { eventually } from '../scenario/scenario-helpers.js';
import { chat, createFleetKey, fleetForThisFile, healthOf, mockConnectionYaml } from './fleet-helpers.js';

const fleet = fleetForThisFile({
  yaml: (mockUrl) => `${mockConnectionYaml(mockUrl)}
routes:
  r:
    retries: 0
    health: { consecutive_failures: 3, eject_base_s: 30 }
    targets:
      - { connection: mock, model: "gpt-down?status=503" }
      - { connection: mock, model: gpt-standby }`,
});

it.skipIf(!fleet.available)('replica A ejects a failing deployment and replica B skips it within 1 s, without sending it a request', async () => {
  const [a, b] = fleet.fleet().replicas;
  const { key } = await createFleetKey(a!.url, { name: 'ejector' });
  // B serves the route too (one failure of its own, short of tripping), as every replica of a busy fleet does.
  expect((await chat(b!.url, key)).headers.get('x-switchyard-served-by')).toBe('mock/gpt-standby');
  for (let index = 0; index < 3; index++) {
    const answer = await chat(a!.url, key);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-switchyard-served-by')).toBe('mock/gpt-standby');
  }
  expect(await healthOf(a!.url, 'mock/gpt-down?status=503')).toMatchObject({ state: 'ejected' });
  await eventually(async () => (await healthOf(b!.url, 'mock/gpt-down?status=503')).state === 'ejected', 1_000, 'replica B seeing the ejection');

  const onB = await chat(b!.url, key);
  expect(onB.status).toBe(200);
  expect(onB.headers.get('x-switchyard-served-by')).toBe('mock/gpt-standby');
  expect(onB.headers.get('x-switchyard-attempts')).toBe('1');
  // The failing deployment saw B's first failure and A's three, and nothing from B since the ejection.
  expect(fleet.mock().attemptsFor('gpt-down')).toHaveLength(4);
  expect(fleet.mock().attemptsFor('gpt-standby')).toHaveLength(5);
}, 60_000);
