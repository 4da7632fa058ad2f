import { afterEach, expect, it } from 'vitest';
import { redisForThisFile } from '../support/redis-server.js';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { deploymentHealth } from '../scenario/health-helpers.js';
import { ADMIN_TOKEN, eventually, fetchRecord, hello } from '../scenario/scenario-helpers.js';

const redis = redisForThisFile();

// Reset before its headers: a `connection` failure, so the kind B names can only be the one A shared.
const FAILING = 'flaky?reset';
const config = (url: string) => `
admin: { token: ${ADMIN_TOKEN} }
state: { kind: redis, url: "${url}", key_prefix: "gateways-${process.pid}:" }
connections:
  primary: { provider: mock }
  standby: { provider: mock }
routes:
  chat:
    retries: 0
    health: { consecutive_failures: 2, eject_base_s: 60 }
    targets:
      - { connection: primary, model: "${FAILING}" }
      - { connection: standby, model: standby-model }
`;

let gateways: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
  gateways = [];
});

it.runIf(redis.available)('a deployment ejected by gateway A is out on gateway B within 1 s: B sends it nothing, says so in /admin/health and names the failure that ejected it', async () => {
  const { url } = redis.server();
  const a = await startGateway(config(url));
  const b = await startGateway(config(url));
  gateways = [a, b];
  // B serves the route first, so it holds its own copy of the deployment's health.
  expect((await (await postChat(b.url, { model: 'chat', messages: hello })).text()).length).toBeGreaterThan(0);
  for (let i = 0; i < 2; i++) {
    const response = await postChat(a.url, { model: 'chat', messages: hello });
    await response.text();
    expect(response.headers.get('x-switchyard-served-by')).toBe('standby/standby-model');
  }
  expect((await deploymentHealth(a.url, `primary/${FAILING}`)).state).toBe('ejected');
  const startedAtMs = Date.now();
  await eventually(async () => (await deploymentHealth(b.url, `primary/${FAILING}`)).state === 'ejected', 1_000, 'ejected on B');
  expect(Date.now() - startedAtMs).toBeLessThan(1_000);

  const sentBefore = b.mock.attemptsFor('flaky').length;
  const response = await postChat(b.url, { model: 'chat', messages: hello });
  await response.text();
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('standby/standby-model');
  expect(b.mock.attemptsFor('flaky')).toHaveLength(sentBefore);
  expect((await deploymentHealth(b.url, `primary/${FAILING}`)).consecutive_ejections).toBe(1);
  const record = await fetchRecord(b.url, response.headers.get('x-request-id')!);
  expect(record.skipped).toEqual([{ connection: 'primary', model: FAILING, reason: 'ejected', kind: 'connection', until_ms: expect.any(Number) }]);
}, 30_000);
