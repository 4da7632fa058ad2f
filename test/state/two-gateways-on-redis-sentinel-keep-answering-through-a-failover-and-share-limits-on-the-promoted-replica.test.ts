import { expect, it } from 'vitest';
import { chat, keepAsking } from '../fleet/fleet-helpers.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { gatewaysOnSentinelsForThisFile, redisSentinelsForThisFile } from '../support/redis-sentinel.js';
import { createKey } from '../support/virtual-keys.js';

const sentinel = redisSentinelsForThisFile();
const ADMIN_TOKEN = 'sentinel-admin-token';
// Two replicas that know Redis only through its sentinels; one database for keys and the ledger.
const { gateways, bothAre, stateLog } = gatewaysOnSentinelsForThisFile(sentinel, { keyPrefix: 'sentinel', adminToken: ADMIN_TOKEN, target: '{ connection: mock, model: gpt-steady, price: { input_per_mtok: 1, output_per_mtok: 1 } }' });

it.skipIf(!sentinel.available)('with the primary killed mid-traffic both gateways keep answering 200, follow the promoted replica, and an rpm limit holds across them again', async () => {
  const { key } = await createKey(gateways()[0]!.url, ADMIN_TOKEN, { name: 'through-failover', limits: { rpm: 100_000 }, budget: { usd: 1_000, period: 'day' } });
  await eventually(() => bothAre('shared'), 10_000, 'both gateways sharing state through the sentinels');
  const traffic = gateways().map((gateway) => keepAsking(gateway.url, key));
  await eventually(() => traffic.every((loop) => loop.answers.length >= 3), 10_000, 'traffic on both gateways');

  const primaryPort = await sentinel.set().primaryPort();
  await sentinel.set().killPrimary();
  await eventually(() => bothAre('degraded'), 15_000, 'both gateways degraded once the primary is gone');
  const countsAtOutage = traffic.map((loop) => loop.answers.length);
  const promotedPort = await sentinel.set().promotedFrom(primaryPort, 30_000);
  expect(promotedPort).not.toBe(primaryPort);
  // Limits sized for a loaded CI (they bound a hang, not a speed): 8 s on a quiet machine, but over
  // 20 s at a load average of 10 on two cores, and over 75 s with two suites sharing them — a
  // sentinel whose timer runs late enters TILT mode and acts on nothing for 30 s.
  await eventually(() => bothAre('shared'), 150_000, 'both gateways sharing state on the promoted replica').catch((error: Error) => {
    throw new Error(`${error.message}; the sentinels name ${promotedPort}; what the gateways logged:\n${stateLog()}`);
  });
  await eventually(() => traffic.every((loop, index) => loop.answers.length >= countsAtOutage[index]! + 3), 10_000, 'traffic on both gateways after the failover');
  const answers = (await Promise.all(traffic.map((loop) => loop.stop()))).flat();
  expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);

  // Shared again, on the promoted replica: rpm 2 across both gateways, the third is refused on either.
  const limited = await createKey(gateways()[1]!.url, ADMIN_TOKEN, { name: 'rpm-2-after-failover', limits: { rpm: 2 } });
  expect((await chat(gateways()[0]!.url, limited.key)).status).toBe(200);
  expect((await chat(gateways()[1]!.url, limited.key)).status).toBe(200);
  const refused = await chat(gateways()[0]!.url, limited.key);
  expect(refused.status).toBe(429);
  expect(refused.body.error?.code).toBe('rate_limit_exceeded');
}, 240_000);
