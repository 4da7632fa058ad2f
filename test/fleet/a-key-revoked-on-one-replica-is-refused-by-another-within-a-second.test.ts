import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import { startGatewayFleet, type GatewayFleet } from '../support/gateway-fleet.js';
import { postgresForThisFile } from '../support/postgres-server.js';
import { redisForThisFile } from '../support/redis-server.js';
import { admin, chat, mockRouteYaml, within } from './fleet-helpers.js';

const redis = redisForThisFile();
const postgres = postgresForThisFile();
let mock: MockProvider;
let fleet: GatewayFleet | undefined;

beforeAll(async () => {
  if (!redis.available || !postgres.available) return;
  mock = await startMockProvider();
  fleet = await startGatewayFleet({
    redisUrl: redis.server().url,
    postgresUrl: await postgres.server().createDatabase('fleet'),
    yaml: mockRouteYaml(mock.url),
  });
}, 120_000);

afterAll(async () => {
  await fleet?.stop();
  await mock?.close();
});

it.skipIf(!redis.available || !postgres.available)('a key revoked on replica A is refused by replica B within 1 s, without reaching the provider', async () => {
  const [a, b] = fleet!.replicas;
  const created = await admin(a!.url, 'POST', '/admin/keys', { name: 'doomed' });
  expect(created.status).toBe(201);
  const key = created.body.key as string;
  // Both replicas know (and cache) the key.
  expect((await chat(a!.url, key)).status).toBe(200);
  expect((await chat(b!.url, key)).status).toBe(200);
  expect(mock.attemptsFor('gpt-mock')).toHaveLength(2);

  expect(await admin(a!.url, 'DELETE', `/admin/keys/${created.body.id}`)).toMatchObject({ status: 200, body: { revoked: true } });
  let answeredOk = 0;
  const tookMs = await within(1_000, 'replica B refuses the revoked key', async () => {
    const answer = await chat(b!.url, key);
    if (answer.status === 200) answeredOk++;
    return answer.status === 401;
  });
  expect(tookMs).toBeLessThanOrEqual(1_000);
  const refused = await chat(b!.url, key);
  expect(refused.status).toBe(401);
  expect(refused.body.error).toMatchObject({ code: 'invalid_api_key' });
  expect(refused.body.error?.message).toMatch(/revoked/);
  // The provider saw the two requests before the revocation and whatever B let through before it heard.
  expect(mock.attemptsFor('gpt-mock')).toHaveLength(2 + answeredOk);
}, 60_000);
