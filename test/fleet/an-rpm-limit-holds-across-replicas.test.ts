import { expect, it } from 'vitest';
import { chat, createFleetKey, fleetForThisFile, mockConnectionYaml } from './fleet-helpers.js';

const fleet = fleetForThisFile({
  yaml: (mockUrl) => `${mockConnectionYaml(mockUrl)}
routes:
  r: { targets: [{ connection: mock, model: gpt-rpm }] }`,
});

it.skipIf(!fleet.available)('rpm 4: eight requests alternating between two replicas admit four; the rest get 429 rate_limit_exceeded with retry-after', async () => {
  const [a, b] = fleet.fleet().replicas;
  const { key } = await createFleetKey(a!.url, { name: 'rpm-4', limits: { rpm: 4 } });
  const answers = [];
  for (let index = 0; index < 8; index++) answers.push(await chat((index % 2 === 0 ? a : b)!.url, key));
  expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 429, 429, 429, 429]);
  for (const refused of answers.slice(4)) {
    expect(refused.body.error?.code).toBe('rate_limit_exceeded');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  }
  expect(fleet.mock().attemptsFor('gpt-rpm')).toHaveLength(4);
}, 60_000);
