import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { deploymentHealth } from '../health-helpers.js';
import { ADMIN_TOKEN, hello } from '../scenario-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  // Two models on one connection (one key). The key is rejected on the first; the second has not
  // had traffic yet. A rejected key is the connection's fault (docs/health.md: a credential fault takes
  // out every deployment of the connection), so the second must not be tried with it either.
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  shared-key: { provider: mock, dialect: openai }
  other-key: { provider: mock, dialect: anthropic }
routes:
  first-model:
    targets:
      - { connection: shared-key, model: "model-x?status=401" }
      - { connection: other-key, model: standby-x }
  second-model:
    targets:
      - { connection: shared-key, model: "model-y?status=401" }
      - { connection: other-key, model: standby-y }
`);
});
afterAll(() => gateway.close());

const ask = async (model: string) => {
  const response = await postChat(gateway.url, { model, messages: hello });
  await response.text();
  return response;
};

it('a key rejected on one model takes the connection\'s other models out too, even ones without traffic yet', async () => {
  const first = await ask('first-model');
  expect(first.status).toBe(200);
  expect(first.headers.get('x-switchyard-served-by')).toBe('other-key/standby-x');
  expect(gateway.mock.attemptsFor('model-x')).toHaveLength(1);

  // The other model of the same connection is out as well: not contacted with the rejected key.
  const second = await ask('second-model');
  expect(second.status).toBe(200);
  expect(second.headers.get('x-switchyard-served-by')).toBe('other-key/standby-y');
  expect(gateway.mock.attemptsFor('model-y')).toHaveLength(0);
  expect(second.headers.get('x-switchyard-attempts')).toBe('1');
  expect(await deploymentHealth(gateway.url, 'shared-key/model-y?status=401')).toMatchObject({ state: 'structural', structural_cause: 'credential' });
});
