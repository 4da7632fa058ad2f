import { afterEach, describe, expect, it } from 'vitest';
import { redisForThisFile } from '../support/redis-server.js';
import { attemptOn, healthConfig, startReplicas, within, type HealthReplica, type StateKind } from '../support/health-replicas.js';

const redis = redisForThisFile();
const kinds: StateKind[] = redis.available ? ['memory', 'redis'] : ['memory'];

// A long ejection: only a recovery probe can bring the deployment back within the test.
const config = healthConfig({
  connections: { east: { provider: 'mock' }, west: { provider: 'mock' } },
  routes: { chat: { health: { consecutive_failures: 2, eject_base_s: 600, recovery_probe_s: 0.3 }, targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'c' }] } },
});

let replicas: HealthReplica[] = [];
let prefix = 0;
afterEach(async () => {
  await Promise.all([...new Set(replicas)].map((replica) => replica.close()));
  replicas = [];
});

const east = (replica: HealthReplica) => replica.target('chat', 0);
const breakerOf = (replica: HealthReplica) => replica.registry.find('east/a')!.breaker;
const probesOfEastA = (pair: HealthReplica[]) => [...new Set(pair)].flatMap((replica) => replica.probes).filter((key) => key === 'east/a').length;

describe.each(kinds)('recovery probes across replicas (%s)', (kind) => {
  it('two monitors due to probe an ejected deployment send one probe per interval between them; a failed one changes nothing, a successful one readmits on both', async () => {
    const [a, b] = await startReplicas(kind, config, () => redis.server(), `recovery-${process.pid}-${++prefix}:`);
    replicas = [a, b];
    for (const replica of [a, b]) await attemptOn(replica, east(replica), 'ok');
    await attemptOn(a, east(a), 'server_error');
    await attemptOn(a, east(a), 'server_error');
    await within(10_000, () => breakerOf(b).state === 'ejected' && breakerOf(b).ejectedUntilMs === breakerOf(a).ejectedUntilMs);
    const { ejectedUntilMs } = breakerOf(a);
    a.probeAnswer = 'server_error';
    b.probeAnswer = 'server_error';

    const intervalMs = 300;
    await within(10_000, () => Date.now() >= Math.max(breakerOf(a).sinceMs, breakerOf(b).sinceMs) + intervalMs);
    await Promise.all([a.monitor.tick(), b.monitor.tick(), a.monitor.tick(), b.monitor.tick()]);
    expect(probesOfEastA([a, b])).toBe(1);
    for (const replica of [a, b]) {
      expect(breakerOf(replica).state).toBe('ejected');
      expect(breakerOf(replica).ejectedUntilMs).toBe(ejectedUntilMs);
    }

    // The next interval has its own probe, and this one succeeds.
    a.probeAnswer = 'ok';
    b.probeAnswer = 'ok';
    await within(10_000, async () => {
      await Promise.all([a.monitor.tick(), b.monitor.tick()]);
      return probesOfEastA([a, b]) === 2;
    });
    await within(10_000, () => breakerOf(a).state === 'closed' && breakerOf(b).state === 'closed');
    for (const replica of [a, b]) {
      expect(breakerOf(replica).consecutiveEjections).toBe(0);
      expect((await replica.door.admit(east(replica), replica.route())).out).toBe(false);
    }
    await Promise.all([a.monitor.tick(), b.monitor.tick()]);
    expect(probesOfEastA([a, b])).toBe(2);
  });
});
