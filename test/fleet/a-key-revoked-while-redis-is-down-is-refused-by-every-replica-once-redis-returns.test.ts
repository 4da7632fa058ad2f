import { expect, it } from 'vitest';
import { eventually } from '../scenario/scenario-helpers.js';
import { adminCall, chat, createFleetKey, fleetForThisFile, mockConnectionYaml, stateOf } from './fleet-helpers.js';

const fleet = fleetForThisFile({
  yaml: (mockUrl) => `${mockConnectionYaml(mockUrl)}
routes:
  r: { targets: [{ connection: mock, model: gpt-revoked }] }`,
});

it.skipIf(!fleet.available)('a key revoked on replica A while Redis is down keeps working on B meanwhile, and B refuses it within 1 s of Redis answering again', async () => {
  const [a, b] = fleet.fleet().replicas;
  const { id, key } = await createFleetKey(a!.url, { name: 'revoked-in-the-dark' });
  expect((await chat(a!.url, key)).status).toBe(200);
  expect((await chat(b!.url, key)).status).toBe(200);

  await fleet.redis().stop();
  await eventually(async () => (await stateOf(b!.url)) === 'degraded', 5_000, 'replica B saying it is degraded');
  expect(await adminCall(a!.url, 'DELETE', `/admin/keys/${id}`)).toEqual({ id, revoked: true });
  expect((await chat(a!.url, key)).status).toBe(401);
  // The revocation could not be announced: B still knows the key as it was (until its next refresh).
  expect((await chat(b!.url, key)).status).toBe(200);

  await fleet.redis().start();
  await eventually(async () => (await stateOf(b!.url)) === 'shared', 10_000, 'replica B sharing state again');
  let servedMeanwhile = 0;
  await eventually(
    async () => {
      const answer = await chat(b!.url, key);
      if (answer.status === 200) servedMeanwhile++;
      return answer.status === 401;
    },
    1_000,
    'replica B refusing the key revoked during the outage',
  );
  // The provider saw the three served before the resync and whatever B served while it re-read the key.
  expect(fleet.mock().attemptsFor('gpt-revoked')).toHaveLength(3 + servedMeanwhile);
}, 60_000);
