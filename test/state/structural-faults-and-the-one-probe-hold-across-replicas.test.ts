import { afterEach, describe, expect, it } from 'vitest';
import { redisForThisFile } from '../support/redis-server.js';
import { attemptOn, healthConfig, startReplicas, within, type HealthReplica, type StateKind } from '../support/health-replicas.js';

const redis = redisForThisFile();
const kinds: StateKind[] = redis.available ? ['memory', 'redis'] : ['memory'];

const config = healthConfig({
  health: { probe_interval_s: 0.3, persist_429_s: 900 },
  connections: { east: { provider: 'mock' }, west: { provider: 'mock' } },
  routes: { chat: { targets: [{ connection: 'east', model: 'a' }, { connection: 'east', model: 'b' }, { connection: 'west', model: 'c' }] } },
});

let replicas: HealthReplica[] = [];
let prefix = 0;
afterEach(async () => {
  await Promise.all([...new Set(replicas)].map((replica) => replica.close()));
  replicas = [];
});

async function two(kind: StateKind): Promise<[HealthReplica, HealthReplica]> {
  const pair = await startReplicas(kind, config, () => redis.server(), `structural-${process.pid}-${++prefix}:`);
  replicas = pair;
  for (const replica of pair) await attemptOn(replica, replica.target('chat', 0), 'ok');
  return pair;
}

const structural = (replica: HealthReplica, key: string) => replica.registry.find(key)?.structural.state === 'structural';
const alertsOf = (replicas: HealthReplica[], type: string) => [...new Set(replicas)].flatMap((replica) => replica.alerts.filter((alert) => alert.type === type));

describe.each(kinds)('structural faults across replicas (%s)', (kind) => {
  it('a key rejected on A puts its connection out on B, even a model B has not used, and alerts once', async () => {
    const [a, b] = await two(kind);
    await attemptOn(a, a.target('chat', 0), 'credential');
    await within(10_000, () => structural(b, 'east/a'));
    expect(await b.door.admit(b.target('chat', 0), b.route())).toMatchObject({ out: true, reason: 'structural' });
    expect(await b.door.admit(b.target('chat', 1), b.route())).toMatchObject({ out: true, reason: 'structural' });
    expect((await b.door.admit(b.target('chat', 2), b.route())).out).toBe(false);
    await within(10_000, () => alertsOf([a, b], 'structural').length >= 1);
    expect(alertsOf([a, b], 'structural').filter((alert) => alert.deployment === 'east/a')).toHaveLength(1);
    expect(b === a || b.alerts.every((alert) => alert.type !== 'structural' || alert.deployment !== 'east/a')).toBe(true);
  });

  it('two monitors due to probe send one probe per interval between them; a successful one readmits on both', async () => {
    const [a, b] = await two(kind);
    a.probeAnswer = 'credential';
    b.probeAnswer = 'credential';
    await attemptOn(a, a.target('chat', 0), 'credential');
    await within(10_000, () => structural(b, 'east/a'));
    const due = (replica: HealthReplica) => (replica.registry.find('east/a')!.structural.nextProbeAtMs ?? Infinity) <= Date.now();
    await within(10_000, () => due(a) && due(b));
    await Promise.all([a.monitor.tick(), b.monitor.tick(), a.monitor.tick(), b.monitor.tick()]);
    const probesOfEastA = () => [...new Set([a, b])].flatMap((replica) => replica.probes).filter((key) => key === 'east/a').length;
    expect(probesOfEastA()).toBe(1);
    // The next interval has its own probe, and this one succeeds. On a loaded machine a round of
    // ticks can outlast an interval (0.3 s), so the replica that has not yet heard of the success
    // may probe in the interval after it: one probe per interval, not two probes in all.
    a.probeAnswer = 'ok';
    b.probeAnswer = 'ok';
    await within(10_000, async () => {
      await Promise.all([a.monitor.tick(), b.monitor.tick()]);
      return probesOfEastA() >= 2;
    });
    await within(10_000, () => !structural(a, 'east/a') && !structural(b, 'east/a') && !structural(b, 'east/b'));
    expect((await b.door.admit(b.target('chat', 1), b.route())).out).toBe(false);
    // Readmitted on both, it is probed no more.
    const probed = probesOfEastA();
    await new Promise((resolve) => setTimeout(resolve, 400));
    await Promise.all([a.monitor.tick(), b.monitor.tick()]);
    expect(probesOfEastA()).toBe(probed);
  });
});
