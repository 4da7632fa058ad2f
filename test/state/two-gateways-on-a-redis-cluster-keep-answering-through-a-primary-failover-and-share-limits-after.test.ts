import { expect, it } from 'vitest';
import { chat, keepAsking } from '../fleet/fleet-helpers.js';
import { eventually } from '../scenario/scenario-helpers.js';
import { redisClusterForThisFile } from '../support/redis-cluster.js';
import { twoGatewaysForThisFile } from '../support/two-gateways.js';
import { createKey } from '../support/virtual-keys.js';

// Three primaries, each with a replica that takes over once its primary has not answered for a second.
const cluster = redisClusterForThisFile({ replicas: true });
const ADMIN_TOKEN = 'cluster-failover-admin-token';
const { gateways, bothAre } = twoGatewaysForThisFile(cluster.available, () => `kind: redis-cluster, nodes: ${JSON.stringify(cluster.cluster().nodes)}`, {
  keyPrefix: 'cluster-failover',
  adminToken: ADMIN_TOKEN,
  target: '{ connection: mock, model: gpt-steady, price: { input_per_mtok: 1, output_per_mtok: 1 } }',
});

/** rpm 2 across both gateways: the third request, on either, is refused. */
async function rpmHoldsAcrossBoth(name: string): Promise<void> {
  const { key } = await createKey(gateways()[1]!.url, ADMIN_TOKEN, { name, limits: { rpm: 2 } });
  expect((await chat(gateways()[0]!.url, key)).status).toBe(200);
  expect((await chat(gateways()[1]!.url, key)).status).toBe(200);
  const refused = await chat(gateways()[0]!.url, key);
  expect(refused.status).toBe(429);
  expect(refused.body.error?.code).toBe('rate_limit_exceeded');
}

/**
 * A new key whose gate is on a primary the cluster started with (so one with its replica): after a
 * failover one slot range is on a promoted replica, which has none.
 */
async function keyOnAnOriginalPrimary(name: string) {
  for (let attempt = 0; attempt < 20; attempt++) {
    const created = await createKey(gateways()[0]!.url, ADMIN_TOKEN, { name: `${name}-${attempt}`, limits: { rpm: 100_000 }, budget: { usd: 1_000, period: 'day' } });
    const port = await cluster.cluster().primaryPortOf(await cluster.cluster().slotOf(`{${created.id}}`));
    const primary = cluster.cluster().primaries.find((server) => server.port === port);
    if (primary) return { ...created, primary };
  }
  throw new Error('no key landed on a primary the cluster started with');
}

it.skipIf(!cluster.available)('with the primary of a key’s slot killed mid-traffic both gateways keep answering 200, follow the promoted replica, and an rpm limit holds across them again', async () => {
  await eventually(() => bothAre('shared'), 10_000, 'both gateways sharing state on the cluster');
  const { key, primary } = await keyOnAnOriginalPrimary('through-failover');
  const traffic = gateways().map((gateway) => keepAsking(gateway.url, key));
  await eventually(() => traffic.every((loop) => loop.answers.length >= 3), 10_000, 'traffic on both gateways');

  await primary.stop();
  await eventually(() => bothAre('degraded'), 5_000, 'both gateways degraded once the primary is gone');
  const countsAtOutage = traffic.map((loop) => loop.answers.length);
  expect(await cluster.cluster().promotedFrom(primary.port, 30_000)).not.toBe(primary.port);
  await eventually(() => bothAre('shared'), 20_000, 'both gateways sharing state with the promoted replica');
  await eventually(() => traffic.every((loop, index) => loop.answers.length >= countsAtOutage[index]! + 3), 10_000, 'traffic on both gateways after the failover');
  const answers = (await Promise.all(traffic.map((loop) => loop.stop()))).flat();
  expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);

  await rpmHoldsAcrossBoth('rpm-2-after-failover');
}, 120_000);

it.skipIf(!cluster.available)('a primary that hangs, its connections open, is left for the replica promoted in its place: state is shared again there', async () => {
  await eventually(() => bothAre('shared'), 20_000, 'both gateways sharing state on the cluster');
  const { primary } = await keyOnAnOriginalPrimary('through-hang');
  primary.freeze();
  try {
    await eventually(() => bothAre('degraded'), 5_000, 'both gateways degraded by the hang');
    await cluster.cluster().promotedFrom(primary.port, 30_000);
    // Nothing closes the connections to the hung primary: the gateways find the new one by reading the slots again.
    await eventually(() => bothAre('shared'), 20_000, 'both gateways sharing state with the promoted replica');
    await rpmHoldsAcrossBoth('rpm-2-after-hang');
  } finally {
    primary.thaw();
  }
}, 120_000);
