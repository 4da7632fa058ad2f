import { afterEach, describe, expect, it } from 'vitest';
import { redisForThisFile } from '../support/redis-server.js';
import { healthConfig, startReplicas, within, type HealthReplica } from '../support/health-replicas.js';

const redis = redisForThisFile();

const config = healthConfig({
  connections: { east: { provider: 'mock' }, west: { provider: 'mock' } },
  routes: { chat: { targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'c' }] } },
});

let replicas: HealthReplica[] = [];
afterEach(async () => {
  await Promise.all(replicas.map((replica) => replica.close()));
  replicas = [];
});

describe.runIf(redis.available)('fleet figures', () => {
  it('the fallback share of a route is the fleet’s: A serves by fallback, B by the primary, both say half', async () => {
    const [a, b] = (replicas = await startReplicas('redis', config, () => redis.server(), `share-${process.pid}:`));
    const nowMs = Date.now();
    for (let i = 0; i < 10; i++) a.fallbackShare.record('chat', true, nowMs);
    for (let i = 0; i < 10; i++) b.fallbackShare.record('chat', false, nowMs);
    expect(a.fallbackShare.share('chat', nowMs)).toBe(1);
    await a.fleetFallbackShare!.flush();
    await b.fleetFallbackShare!.flush();
    await a.fleetFallbackShare!.flush();
    expect(a.fallbackShare.share('chat', Date.now())).toBe(0.5);
    expect(b.fallbackShare.share('chat', Date.now())).toBe(0.5);
    await a.monitor.tick();
    expect((await a.metrics.fallbackShare.get()).values.find((value) => value.labels.route === 'chat')?.value).toBe(0.5);
  });

  it('the latest quota headers seen by A are what B shows for the deployment', async () => {
    const [a, b] = (replicas = await startReplicas('redis', config, () => redis.server(), `quota-${process.pid}:`));
    const onB = await b.door.admit(b.target('chat', 0), b.route());
    const onA = await a.door.admit(a.target('chat', 0), a.route());
    if (onA.out || onB.out) throw new Error('expected permits');
    const transactions = async () => Number(/cmdstat_exec:calls=(\d+)/.exec(await a.link!.commands.info('commandstats'))?.[1] ?? 0);
    const before = await transactions();
    // A provider sends its quota on every answer: 50 answers in a burst are shared as one snapshot, the latest.
    for (let remaining = 91; remaining >= 42; remaining--) {
      onA.observeHeaders({ 'x-ratelimit-limit-requests': '100', 'x-ratelimit-remaining-requests': String(remaining) });
    }
    await within(10_000, () => b.registry.find('east/a')?.quota?.requests?.remaining === 42);
    expect(b.registry.find('east/a')!.quota!.requests!.limit).toBe(100);
    expect((await transactions()) - before).toBe(1);
  });
});
