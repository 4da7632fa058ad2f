import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chat, stateOf } from '../fleet/fleet-helpers.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { redisSentinelsForThisFile } from '../support/redis-sentinel.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { createKey, keysAuth } from '../support/virtual-keys.js';

const sentinel = redisSentinelsForThisFile();
const ADMIN_TOKEN = 'hung-primary-admin-token';
let directory: string;
let gateways: TestGateway[] = [];

beforeAll(async () => {
  if (!sentinel.available) return;
  directory = mkdtempSync(join(tmpdir(), 'switchyard-hung-primary-'));
  const config = `
state: { kind: redis, sentinels: ${JSON.stringify(sentinel.set().sentinels)}, master: ${sentinel.set().master}, key_prefix: "hung-primary:" }
store: { kind: sqlite, path: "${join(directory, 'shared.db')}" }
${keysAuth(ADMIN_TOKEN)}
connections:
  mock: { provider: mock }
routes:
  r: { targets: [{ connection: mock, model: gpt-steady }] }
`;
  gateways = [await startGateway(config)];
  gateways.push(await startGateway(config));
}, 60_000);
afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
  if (directory) rmSync(directory, { recursive: true, force: true });
});

const bothAre = async (state: string) => (await Promise.all(gateways.map((gateway) => stateOf(gateway.url)))).every((each) => each === state);

it.skipIf(!sentinel.available)('a primary that hangs, its connections open, is left for the replica the sentinels promote: state is shared again there', async () => {
  await eventually(() => bothAre('shared'), 10_000, 'both gateways sharing state through the sentinels');
  const primaryPort = await sentinel.set().primaryPort();
  sentinel.set().freezePrimary();
  await eventually(() => bothAre('degraded'), 5_000, 'both gateways degraded by the hang');
  await sentinel.set().promotedFrom(primaryPort, 30_000);
  // Nothing closes the connections to the hung primary: only the sentinels' announcement moves the gateways.
  await eventually(() => bothAre('shared'), 20_000, 'both gateways sharing state on the promoted replica');

  const { key } = await createKey(gateways[0]!.url, ADMIN_TOKEN, { name: 'rpm-2-after-hang', limits: { rpm: 2 } });
  expect((await chat(gateways[0]!.url, key)).status).toBe(200);
  expect((await chat(gateways[1]!.url, key)).status).toBe(200);
  const refused = await chat(gateways[1]!.url, key);
  expect(refused.status).toBe(429);
  expect(refused.body.error?.code).toBe('rate_limit_exceeded');
}, 120_000);
