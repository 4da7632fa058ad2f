import { afterEach, describe, expect, it } from 'vitest';
import { redisForThisFile } from '../support/redis-server.js';
import { attemptOn, healthConfig, startReplicas, within, type HealthReplica, type StateKind } from '../support/health-replicas.js';

const redis = redisForThisFile();
const kinds: StateKind[] = redis.available ? ['memory', 'redis'] : ['memory'];

const config = healthConfig({
  connections: { east: { provider: 'mock' }, west: { provider: 'mock' } },
  routes: { chat: { targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'c' }] } },
});

let replicas: HealthReplica[] = [];
afterEach(async () => {
  await Promise.all([...new Set(replicas)].map((replica) => replica.close()));
  replicas = [];
});

describe.each(kinds)('cooling across replicas (%s)', (kind) => {
  it('a 429 with Retry-After on A cools the deployment on B within 1 s, for as long', async () => {
    const [a, b] = (replicas = await startReplicas(kind, config, () => redis.server(), `cooling-${process.pid}:`));
    await attemptOn(a, a.target('chat', 0), 'rate_limit', { retryAfterMs: 5_000 });
    await within(1_000, () => b.cooling.coolingUntil('east/a') !== undefined);
    const answer = await b.door.admit(b.target('chat', 0), b.route());
    expect(answer).toMatchObject({ out: true, reason: 'cooling' });
    expect(answer.out && answer.untilMs - Date.now()).toBeGreaterThan(4_000);
    expect(b.door.plan(b.route()).map((target) => target.connectionName)).toEqual(['west']);
  });
});
