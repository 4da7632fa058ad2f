import { expect, it } from 'vitest';
import { chat } from '../fleet/fleet-helpers.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { gatewaysOnSentinelsForThisFile, redisSentinelsForThisFile } from '../support/redis-sentinel.js';
import { createKey } from '../support/virtual-keys.js';

const sentinel = redisSentinelsForThisFile();
const ADMIN_TOKEN = 'hung-primary-admin-token';
const { gateways, bothAre } = gatewaysOnSentinelsForThisFile(sentinel, { keyPrefix: 'hung-primary', adminToken: ADMIN_TOKEN, target: '{ connection: mock, model: gpt-steady }' });

it.skipIf(!sentinel.available)('a primary that hangs, its connections open, is left for the replica the sentinels promote: state is shared again there', async () => {
  await eventually(() => bothAre('shared'), 10_000, 'both gateways sharing state through the sentinels');
  const primaryPort = await sentinel.set().primaryPort();
  sentinel.set().freezePrimary();
  await eventually(() => bothAre('degraded'), 5_000, 'both gateways degraded by the hang');
  await sentinel.set().promotedFrom(primaryPort, 30_000);
  // Nothing closes the connections to the hung primary: only the sentinels' announcement moves the gateways.
  await eventually(() => bothAre('shared'), 20_000, 'both gateways sharing state on the promoted replica');

  const { key } = await createKey(gateways()[0]!.url, ADMIN_TOKEN, { name: 'rpm-2-after-hang', limits: { rpm: 2 } });
  expect((await chat(gateways()[0]!.url, key)).status).toBe(200);
  expect((await chat(gateways()[1]!.url, key)).status).toBe(200);
  const refused = await chat(gateways()[1]!.url, key);
  expect(refused.status).toBe(429);
  expect(refused.body.error?.code).toBe('rate_limit_exceeded');
}, 120_000);
