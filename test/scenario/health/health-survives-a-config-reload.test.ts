import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { deploymentHealth } from '../health-helpers.js';
import { ADMIN_TOKEN, eventually, hello } from '../scenario-helpers.js';

let gateway: TestGateway;

const PRIMARY = 'mock-openai/reload-primary?status=503';

const ROUTES = `
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  guarded:
    retries: 0
    health: { consecutive_failures: 2, eject_base_s: 30 }
    targets:
      - { connection: mock-openai, model: "reload-primary?status=503" }
      - { connection: mock-anthropic, model: reload-standby }
`;
const ROUTES_PLUS_ONE = `${ROUTES}  unrelated:
    targets: [{ connection: mock-anthropic, model: unrelated-model }]
`;

beforeAll(async () => {
  gateway = await startGateway(ROUTES, { watch: true });
});
afterAll(() => gateway.close());

const ask = async () => {
  const response = await postChat(gateway.url, { model: 'guarded', messages: hello });
  await response.text();
  return response;
};

async function routeNames(): Promise<string[]> {
  const response = await fetch(`${gateway.url}/v1/models`, { signal: AbortSignal.timeout(5_000) });
  return ((await response.json()) as { data: { id: string }[] }).data.map((model) => model.id);
}

it('an ejected deployment stays ejected across a reload that leaves it unchanged', async () => {
  // Two 503s eject the primary for 30 s; the standby serves.
  for (let n = 1; n <= 2; n++) {
    const response = await ask();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/reload-standby');
  }
  expect(gateway.mock.attemptsFor('reload-primary')).toHaveLength(2);
  const before = await deploymentHealth(gateway.url, PRIMARY);
  expect(before.state).toBe('ejected');

  // Reload: the same routes plus an unrelated one.
  expect(await routeNames()).toEqual(['guarded']);
  gateway.writeConfig(ROUTES_PLUS_ONE);
  await eventually(async () => (await routeNames()).includes('unrelated'), 5_000, 'the reloaded config to be in force');

  // Still ejected, with the same ejection: the next request does not contact it.
  const after = await deploymentHealth(gateway.url, PRIMARY);
  expect(after.state).toBe('ejected');
  expect(after.since).toBe(before.since);
  expect(after.ejected_until).toBe(before.ejected_until);
  const response = await ask();
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/reload-standby');
  expect(response.headers.get('x-switchyard-attempts')).toBe('1');
  expect(gateway.mock.attemptsFor('reload-primary')).toHaveLength(2);
  expect(gateway.mock.attemptsFor('reload-standby')).toHaveLength(3);
  expect((await deploymentHealth(gateway.url, PRIMARY)).state).toBe('ejected');
});
