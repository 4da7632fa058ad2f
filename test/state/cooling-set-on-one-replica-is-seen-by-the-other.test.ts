import { afterEach, describe, expect, it } from 'vitest';
import { redisForThisFile } from '../support/redis-server.js';
import { attemptOn, healthConfig, startReplica, startReplicas, within, type HealthReplica, type StateKind } from '../support/health-replicas.js';

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
  const keyPrefix = `cooling-${kind}-${process.pid}:`;

  it('a 429 with Retry-After on A cools the deployment on B within 1 s, for as long, with its cause', async () => {
    const [a, b] = (replicas = await startReplicas(kind, config, () => redis.server(), keyPrefix));
    await attemptOn(a, a.target('chat', 0), 'rate_limit', { httpStatus: 429, retryAfterMs: 5_000 });
    await within(10_000, () => b.cooling.coolingUntil('east/a') !== undefined);
    const answer = await b.door.admit(b.target('chat', 0), b.route());
    expect(answer).toMatchObject({ out: true, reason: 'cooling' });
    expect(answer.out && answer.untilMs - Date.now()).toBeGreaterThan(4_000);
    expect(b.door.plan(b.route()).map((target) => target.connectionName)).toEqual(['west']);
    expect(b.cooling.spell('east/a')?.cause).toEqual({ kind: 'rate_limit', httpStatus: 429, retryAfterMs: 5_000 });
  });

  it('a replica that starts after the 429 loads the cooling with its cause and start', async () => {
    const [a] = (replicas = await startReplicas(kind, config, () => redis.server(), `${keyPrefix}late:`));
    await attemptOn(a, a.target('chat', 0), 'rate_limit', { httpStatus: 429 });
    const late = kind === 'memory' ? a : await startReplica(config, { url: redis.server().url, keyPrefix: `${keyPrefix}late:` });
    replicas.push(late);
    await within(10_000, () => late.cooling.spell('east/a') !== undefined);
    const spell = late.cooling.spell('east/a')!;
    expect(spell.cause).toEqual({ kind: 'rate_limit', httpStatus: 429 });
    // No Retry-After: the default 30 s, begun about when A cooled it (each replica on its own clock).
    expect(spell.untilMs - spell.sinceMs).toBe(30_000);
    expect(spell.sinceMs).toBeLessThanOrEqual(Date.now());
  });
});
