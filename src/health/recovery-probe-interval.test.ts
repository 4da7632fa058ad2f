import { describe, expect, it } from 'vitest';
import { configSchema } from '../config/schema.js';
import { recoveryProbeIntervalMs } from './recovery-probe-interval.js';

const config = configSchema.parse({
  connections: { c: { provider: 'mock' } },
  routes: {
    plain: { targets: [{ connection: 'c', model: 'a' }, { connection: 'c', model: 'shared' }] },
    slow: { health: { recovery_probe_s: 30 }, targets: [{ connection: 'c', model: 'b' }, { connection: 'c', model: 'shared' }] },
    off: { health: { recovery_probe_s: 0 }, targets: [{ connection: 'c', model: 'quiet' }] },
  },
});

describe('recoveryProbeIntervalMs', () => {
  it("is the route's recovery_probe_s, 2 s when the route sets none", () => {
    expect(recoveryProbeIntervalMs(config, 'c/a')).toBe(2_000);
    expect(recoveryProbeIntervalMs(config, 'c/b')).toBe(30_000);
    expect(recoveryProbeIntervalMs(config, 'c/quiet')).toBe(0);
  });

  it('takes the first route in config order for a deployment several name', () => {
    expect(recoveryProbeIntervalMs(config, 'c/shared')).toBe(2_000);
  });

  it('is 0 (no probes) for a deployment no route names', () => {
    expect(recoveryProbeIntervalMs(config, 'c/made-up')).toBe(0);
  });
});
