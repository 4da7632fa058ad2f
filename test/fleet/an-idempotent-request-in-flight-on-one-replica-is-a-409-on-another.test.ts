import { expect, it } from 'vitest';
import { eventually } from '../scenario/scenario-helpers.js';
import { chat, createFleetKey, fleetForThisFile, mockConnectionYaml } from './fleet-helpers.js';

const fleet = fleetForThisFile({
  yaml: (mockUrl) => `${mockConnectionYaml(mockUrl)}
routes:
  r: { targets: [{ connection: mock, model: "gpt-slow-once?first_token_ms=1000" }] }`,
});

it.skipIf(!fleet.available)('an idempotent request still in flight on replica A gets 409 with retry-after from replica B, and the upstream sees it once', async () => {
  const [a, b] = fleet.fleet().replicas;
  const { key } = await createFleetKey(a!.url, { name: 'in-flight' });
  const headers = { 'idempotency-key': 'order-fleet-2' };
  const running = chat(a!.url, key, {}, headers);
  await eventually(() => fleet.mock().attemptsFor('gpt-slow-once').length > 0, 5_000, 'the first attempt to reach the provider');
  const conflict = await chat(b!.url, key, {}, headers);
  expect(conflict.status).toBe(409);
  expect(Number(conflict.headers.get('retry-after'))).toBeGreaterThan(0);
  expect((await running).status).toBe(200);
  expect(fleet.mock().attemptsFor('gpt-slow-once')).toHaveLength(1);
}, 60_000);
