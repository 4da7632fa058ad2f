import { expect, it } from 'vitest';
import { chat, createFleetKey, fleetForThisFile, mockConnectionYaml } from './fleet-helpers.js';

const fleet = fleetForThisFile({
  yaml: (mockUrl) => `${mockConnectionYaml(mockUrl)}
routes:
  r: { targets: [{ connection: mock, model: gpt-once }] }`,
});

it.skipIf(!fleet.available)('an idempotent request answered by replica A is replayed by replica B without a new generation', async () => {
  const [a, b] = fleet.fleet().replicas;
  const { key } = await createFleetKey(a!.url, { name: 'idempotent' });
  const headers = { 'idempotency-key': 'order-fleet-1' };
  const first = await chat(a!.url, key, {}, headers);
  expect(first.status).toBe(200);
  expect(first.headers.get('idempotent-replayed')).toBeNull();
  const replay = await chat(b!.url, key, {}, headers);
  expect(replay.status).toBe(200);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body).toEqual(first.body);
  // The upstream saw one request, whichever replica was asked.
  expect(fleet.mock().attemptsFor('gpt-once')).toHaveLength(1);
}, 60_000);
