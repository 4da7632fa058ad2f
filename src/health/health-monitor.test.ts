import { describe, expect, it } from 'vitest';
import { configSchema, DEFAULT_ROUTE_HEALTH } from '../config/schema.js';
import { Metrics } from '../telemetry/metrics.js';
import { Cooling } from './cooling.js';
import { FallbackShare } from './fallback-share.js';
import { HealthMonitor } from './health-monitor.js';
import { HealthRegistry } from './health-registry.js';

const config = configSchema.parse({
  connections: { c: { provider: 'mock' } },
  routes: { named: { targets: [{ connection: 'c', model: 'm' }] } },
});

describe('HealthMonitor probes', () => {
  it('a probe counts as trying the deployment, when it is sent', async () => {
    let nowMs = 0;
    const now = () => nowMs;
    const monitor: HealthMonitor = new HealthMonitor({
      registry: () => registry,
      cooling: new Cooling(now),
      latency: { forget: () => undefined },
      fallbackShare: new FallbackShare(),
      config: () => config,
      metrics: new Metrics(),
      alert: () => undefined,
      probe: async () => {
        nowMs += 700;
        return 'not_found';
      },
      now,
    });
    const registry = new HealthRegistry(monitor, { config: () => config, now });
    const deployment = registry.deployment('c', 'm', DEFAULT_ROUTE_HEALTH, config.health);
    deployment.structural.enter('not_found');
    nowMs = deployment.structural.nextProbeAtMs!;
    const probeSentAtMs = nowMs;
    await monitor.tick();
    expect(deployment.lastTriedAtMs).toBe(probeSentAtMs);
  });
});
