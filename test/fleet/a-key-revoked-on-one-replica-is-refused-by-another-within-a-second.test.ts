import { expect, it } from 'vitest';
import { eventually } from '../scenario/scenario-helpers.js';
import { adminCall, chat, createFleetKey, fleetForThisFile, mockConnectionYaml } from './fleet-helpers.js';

const fleet = fleetForThisFile({
  yaml: (mockUrl) => `${mockConnectionYaml(mockUrl)}
routes:
  r: { targets: [{ connection: mock, model: gpt-revoked }] }`,
});

it.skipIf(!fleet.available)('a key revoked on replica A is refused by replica B within 1 s, without reaching the provider', async () => {
  const [a, b] = fleet.fleet().replicas;
  const { id, key } = await createFleetKey(a!.url, { name: 'doomed' });
  // Both replicas know (and cache) the key.
  expect((await chat(a!.url, key)).status).toBe(200);
  expect((await chat(b!.url, key)).status).toBe(200);
  expect(fleet.mock().attemptsFor('gpt-revoked')).toHaveLength(2);

  expect(await adminCall(a!.url, 'DELETE', `/admin/keys/${id}`)).toEqual({ id, revoked: true });
  let servedMeanwhile = 0;
  await eventually(
    async () => {
      const answer = await chat(b!.url, key);
      if (answer.status === 200) servedMeanwhile++;
      return answer.status === 401;
    },
    1_000,
    'replica B refusing the revoked key',
  );
  const refused = await chat(b!.url, key);
  expect(refused.status).toBe(401);
  expect(refused.body.error).toMatchObject({ code: 'invalid_api_key' });
  expect(refused.body.error?.message).toMatch(/revoked/);
  // The provider saw the two requests before the revocation and only what B served before it heard.
  expect(fleet.mock().attemptsFor('gpt-revoked')).toHaveLength(2 + servedMeanwhile);
}, 60_000);
