import { afterEach, describe, expect, it } from 'vitest';
import { redisForThisFile } from '../support/redis-server.js';
import { healthConfig, startReplicas, type HealthReplica, type StateKind } from '../support/health-replicas.js';

const redis = redisForThisFile();
const kinds: StateKind[] = redis.available ? ['memory', 'redis'] : ['memory'];

// No refill over time: only the two tokens a full bucket holds, and what successes earn.
const config = healthConfig({
  connections: { east: { provider: 'mock' } },
  routes: { chat: { retry_budget: { ratio: 0.5, min_per_second: 0 }, targets: [{ connection: 'east', model: 'a' }] } },
});
const budget = config.routes.chat!.retry_budget;

let replicas: HealthReplica[] = [];
afterEach(async () => {
  await Promise.all([...new Set(replicas)].map((replica) => replica.close()));
  replicas = [];
});

describe.each(kinds)('the retry budget across replicas (%s)', (kind) => {
  it('retries on A and B draw on one bucket, and successes on B, credited in a batch, pay for a retry on A', async () => {
    const [a, b] = (replicas = await startReplicas(kind, config, () => redis.server(), `retry-${process.pid}:`));
    const onA = a.budgets.for('chat', budget);
    const onB = b.budgets.for('chat', budget);
    expect(await onA.tryRetry()).toBe(true);
    expect(await onB.tryRetry()).toBe(true);
    expect(await onA.tryRetry()).toBe(false);
    expect(await onB.tryRetry()).toBe(false);
    onB.recordSuccess();
    onB.recordSuccess();
    await b.fleetRetryBuckets?.flush();
    expect(await onA.tryRetry()).toBe(true);
    expect(await onB.tryRetry()).toBe(false);
  });
});
