import { afterEach, describe, expect, it } from 'vitest';
import { redisForThisFile } from '../support/redis-server.js';
import { attemptOn, healthConfig, startReplica, within, type HealthReplica } from '../support/health-replicas.js';

const redis = redisForThisFile();

const config = healthConfig({
  connections: { east: { provider: 'mock' }, west: { provider: 'mock' } },
  routes: { chat: { health: { consecutive_failures: 2, eject_base_s: 30 }, targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'c' }] } },
});

let replicas: HealthReplica[] = [];
let prefix = 0;
afterEach(async () => {
  await Promise.all(replicas.map((replica) => replica.close()));
  replicas = [];
});

async function replicaOn(keyPrefix: string): Promise<HealthReplica> {
  const replica = await startReplica(config, { url: redis.server().url, keyPrefix });
  replicas.push(replica);
  return replica;
}

const east = (replica: HealthReplica) => replica.target('chat', 0);

async function ejectOn(replica: HealthReplica): Promise<void> {
  await attemptOn(replica, east(replica), 'server_error');
  await attemptOn(replica, east(replica), 'server_error');
  await within(10_000, () => replica.registry.find('east/a')?.breaker.state === 'ejected');
}

describe.runIf(redis.available)('a replica that has not sent a request to a deployment yet', () => {
  it('adopts its ejection when it is published, so its first request skips it', async () => {
    const keyPrefix = `unmet-${process.pid}-${++prefix}:`;
    const a = await replicaOn(keyPrefix);
    const b = await replicaOn(keyPrefix);
    await ejectOn(a);
    // B has routed nothing: what it knows of east/a came from the fleet alone.
    await within(10_000, () => b.registry.find('east/a')?.breaker.state === 'ejected');
    expect(await b.door.admit(east(b), b.route())).toMatchObject({ out: true, reason: 'ejected' });
  });

  it('started after the ejection, has it before it serves', async () => {
    const keyPrefix = `late-${process.pid}-${++prefix}:`;
    const a = await replicaOn(keyPrefix);
    await ejectOn(a);
    const late = await replicaOn(keyPrefix);
    expect(late.registry.find('east/a')?.breaker.state).toBe('ejected');
    expect(await late.door.admit(east(late), late.route())).toMatchObject({ out: true, reason: 'ejected' });
  });
});
