import { afterEach, describe, expect, it } from 'vitest';
import { redisForThisFile } from '../support/redis-server.js';
import { attemptOn, healthConfig, startReplicas, within, type HealthReplica } from '../support/health-replicas.js';

const redis = redisForThisFile();

const config = healthConfig({
  connections: { east: { provider: 'mock' }, west: { provider: 'mock' } },
  routes: {
    chat: {
      health: { consecutive_failures: 2, eject_base_s: 30 },
      retry_budget: { ratio: 0.1, min_per_second: 0 },
      targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'c' }],
    },
  },
});

let replicas: HealthReplica[] = [];
afterEach(async () => {
  await Promise.all(replicas.map((replica) => replica.close()));
  replicas = [];
});

describe.runIf(redis.available)('health while Redis is down', () => {
  it('each replica runs on its own copy (no waiting, no errors), and on return its changes reach the others', async () => {
    const server = redis.server();
    const [a, b] = (replicas = await startReplicas('redis', config, () => server, `outage-${process.pid}:`));
    for (const replica of replicas) await attemptOn(replica, replica.target('chat', 0), 'ok');
    await server.stop();
    try {
      await within(10_000, () => !a.link!.up && !b.link!.up);
      const startedAtMs = Date.now();
      await attemptOn(a, a.target('chat', 0), 'server_error');
      await attemptOn(a, a.target('chat', 0), 'server_error');
      const onA = await a.door.admit(a.target('chat', 0), a.route());
      const onB = await b.door.admit(b.target('chat', 0), b.route());
      // Local decisions, taken at once: A ejected it, B (which heard nothing) still sends to it.
      expect(Date.now() - startedAtMs).toBeLessThan(100);
      expect(onA).toMatchObject({ out: true, reason: 'ejected' });
      expect(onB.out).toBe(false);
      if (!onB.out) onB.settle({ n: 1, connection: 'east', provider: 'mock', model: 'a', kind: 'ok', startedMs: 0, latencyMs: 1, committed: false, malformedEvents: 0 });
      // The retry budget is the local bucket's: two tokens each, not two for both.
      const budget = config.routes.chat!.retry_budget;
      expect([await a.budgets.for('chat', budget).tryRetry(), await a.budgets.for('chat', budget).tryRetry()]).toEqual([true, true]);
      expect(await b.budgets.for('chat', budget).tryRetry()).toBe(true);
    } finally {
      await server.start();
    }
    await within(10_000, () => a.link!.up && b.link!.up);
    // A's ejection, made while Redis was away, is now the fleet's.
    await within(10_000, () => b.registry.find('east/a')!.breaker.state === 'ejected');
    expect(await b.door.admit(b.target('chat', 0), b.route())).toMatchObject({ out: true, reason: 'ejected' });
    expect(b.registry.find('east/a')!.breaker.ejectedUntilMs).toBe(a.registry.find('east/a')!.breaker.ejectedUntilMs);
  }, 30_000);
});
