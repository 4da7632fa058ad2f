import { describe, expect, it } from 'vitest';
import { configSchema, DEFAULT_ROUTE_HEALTH, type Config } from '../config/schema.js';
import type { FailureKind } from '../core/failure-kind.js';
import { Metrics } from '../telemetry/metrics.js';
import { Cooling } from './cooling.js';
import { FallbackShare } from './fallback-share.js';
import { HealthMonitor, type HealthMonitorDeps } from './health-monitor.js';
import { HealthRegistry, type DeploymentHealth } from './health-registry.js';

function configWith(health: object = {}): Config {
  return configSchema.parse({
    health: { probe_interval_s: 60 },
    connections: { c: { provider: 'mock' } },
    routes: { r: { health, targets: [{ connection: 'c', model: 'primary' }, { connection: 'c', model: 'standby' }] } },
  });
}

/** A monitor on a clock the test moves (never started: the test runs its passes), whose probes end as `answers` says (then `ok`). */
function setup(options: { config?: Config; probeLease?: HealthMonitorDeps['probeLease']; probe?: () => Promise<FailureKind> } = {}) {
  const clock = { nowMs: 100_000 };
  const now = () => clock.nowMs;
  const settings = { config: options.config ?? configWith() };
  const config = () => settings.config;
  const probes: { key: string; atMs: number }[] = [];
  const answers: FailureKind[] = [];
  const cooling = new Cooling({ now });
  const monitor: HealthMonitor = new HealthMonitor({
    registry: () => registry,
    cooling,
    latency: { forget: () => undefined },
    fallbackShare: new FallbackShare(),
    config,
    metrics: new Metrics(),
    alert: () => undefined,
    probe: async (deployment) => {
      probes.push({ key: deployment.key, atMs: clock.nowMs });
      return options.probe ? options.probe() : (answers.shift() ?? 'ok');
    },
    ...(options.probeLease ? { probeLease: options.probeLease } : {}),
    now,
  });
  const registry: HealthRegistry = new HealthRegistry(monitor, { config, now });
  const primary = registry.deployment('c', 'primary', settings.config.routes.r!.health ?? DEFAULT_ROUTE_HEALTH, settings.config.health);
  /** Three failures in a row: ejected for 10 s. */
  const eject = (deployment: DeploymentHealth = primary) => {
    for (let count = 0; count < 3; count++) registry.settled(deployment, deployment.breaker.admit()!, 'server_error', '503');
    expect(deployment.breaker.state).toBe('ejected');
  };
  /** Moves the clock and runs the monitor's pass. */
  const tickAt = async (offsetMs: number, fromMs: number) => {
    clock.nowMs = fromMs + offsetMs;
    await monitor.tick();
  };
  return { clock, settings, probes, answers, cooling, monitor, registry, primary, eject, tickAt };
}

describe('HealthMonitor: recovery probes of an ejected deployment', () => {
  it('probes it every recovery_probe_s (2 s by default) while ejected; a failure keeps the ejection as it was', async () => {
    const { clock, probes, answers, primary, eject, tickAt } = setup();
    eject();
    const ejectedAtMs = clock.nowMs;
    const { ejectedUntilMs } = primary.breaker;
    answers.push('server_error', 'server_error');
    await tickAt(1_999, ejectedAtMs);
    expect(probes).toHaveLength(0);
    await tickAt(2_000, ejectedAtMs);
    await tickAt(3_000, ejectedAtMs);
    expect(probes.map((probe) => probe.atMs - ejectedAtMs)).toEqual([2_000]);
    await tickAt(4_000, ejectedAtMs);
    expect(probes.map((probe) => probe.atMs - ejectedAtMs)).toEqual([2_000, 4_000]);
    expect(primary.breaker.state).toBe('ejected');
    expect(primary.breaker.ejectedUntilMs).toBe(ejectedUntilMs);
    expect(primary.breaker.consecutiveEjections).toBe(1);
  });

  it('readmits it at the first successful probe, before the ejection time is up, and probes no more', async () => {
    const { clock, probes, answers, primary, eject, tickAt } = setup();
    eject();
    const ejectedAtMs = clock.nowMs;
    answers.push('server_error');
    await tickAt(2_000, ejectedAtMs);
    await tickAt(4_000, ejectedAtMs);
    expect(primary.breaker.state).toBe('closed');
    expect(primary.breaker.reason).toBe('readmitted by a successful recovery probe');
    expect(primary.breaker.consecutiveEjections).toBe(0);
    await tickAt(6_000, ejectedAtMs);
    await tickAt(20_000, ejectedAtMs);
    expect(probes).toHaveLength(2);
  });

  it('goes on probing once the ejection time is up and a caller holds the half-open trial', async () => {
    const { clock, probes, answers, primary, eject, tickAt } = setup({ config: configWith({ recovery_probe_s: 4 }) });
    eject();
    const ejectedAtMs = clock.nowMs;
    answers.push('timeout', 'timeout', 'timeout');
    await tickAt(4_000, ejectedAtMs);
    await tickAt(8_000, ejectedAtMs);
    clock.nowMs = ejectedAtMs + 10_000;
    const callerTrial = primary.breaker.admit();
    expect(callerTrial?.trial).toBe(true);
    await tickAt(12_000, ejectedAtMs);
    expect(primary.breaker.state).toBe('half_open');
    await tickAt(16_000, ejectedAtMs);
    expect(probes.map((probe) => probe.atMs - ejectedAtMs)).toEqual([4_000, 8_000, 12_000, 16_000]);
    expect(primary.breaker.state).toBe('closed');
  });

  it('sends none with recovery_probe_s: 0: only a caller trial can readmit it', async () => {
    const { clock, probes, primary, eject, tickAt } = setup({ config: configWith({ recovery_probe_s: 0 }) });
    eject();
    const ejectedAtMs = clock.nowMs;
    for (let offsetMs = 1_000; offsetMs <= 30_000; offsetMs += 1_000) await tickAt(offsetMs, ejectedAtMs);
    expect(probes).toHaveLength(0);
    expect(primary.breaker.state).toBe('ejected');
  });

  it('applies a reload from the next interval: off stops the probes, on starts them', async () => {
    const { clock, settings, probes, answers, eject, tickAt } = setup();
    eject();
    const ejectedAtMs = clock.nowMs;
    answers.push('server_error', 'server_error', 'server_error');
    await tickAt(2_000, ejectedAtMs);
    settings.config = configWith({ recovery_probe_s: 0 });
    await tickAt(4_000, ejectedAtMs);
    await tickAt(6_000, ejectedAtMs);
    expect(probes).toHaveLength(1);
    settings.config = configWith({ recovery_probe_s: 5 });
    await tickAt(6_500, ejectedAtMs);
    await tickAt(7_000, ejectedAtMs);
    await tickAt(11_000, ejectedAtMs);
    await tickAt(12_000, ejectedAtMs);
    expect(probes.map((probe) => probe.atMs - ejectedAtMs)).toEqual([2_000, 7_000, 12_000]);
  });

  it('waits out a cooling: the provider asked for time', async () => {
    const { clock, cooling, probes, eject, tickAt } = setup();
    eject();
    const ejectedAtMs = clock.nowMs;
    cooling.cool('c/primary', { kind: 'rate_limit', httpStatus: 429, retryAfterMs: 5_000 });
    await tickAt(2_000, ejectedAtMs);
    await tickAt(4_000, ejectedAtMs);
    expect(probes).toHaveLength(0);
    await tickAt(5_000, ejectedAtMs);
    expect(probes).toHaveLength(1);
  });

  it('leaves a structurally faulted deployment to its structural probe, every probe_interval_s', async () => {
    const { clock, probes, primary, registry, eject, tickAt } = setup();
    eject();
    registry.settled(primary, primary.breaker.forceAdmit(), 'not_found', '404');
    expect(primary.structural.state).toBe('structural');
    const faultedAtMs = clock.nowMs;
    for (let offsetMs = 1_000; offsetMs < 60_000; offsetMs += 1_000) await tickAt(offsetMs, faultedAtMs);
    expect(probes).toHaveLength(0);
    await tickAt(60_000, faultedAtMs);
    expect(probes).toHaveLength(1);
    expect(primary.structural.state).toBe('clear');
    expect(primary.breaker.state).toBe('ejected');
    // Clear of the fault, it is probed for its ejection, on the ejection's own lease.
    await tickAt(62_000, faultedAtMs);
    expect(probes).toHaveLength(2);
    expect(primary.breaker.state).toBe('closed');
  });

  it('sends no probe in an interval whose lease another replica holds, and tries again one interval later', async () => {
    const leases: { leaseMs: number; purpose: string; granted: boolean }[] = [];
    const grants = [false, true];
    const { clock, probes, eject, tickAt } = setup({
      probeLease: async (_deployment, leaseMs, purpose) => {
        const granted = grants.shift() ?? true;
        leases.push({ leaseMs, purpose, granted });
        return granted;
      },
    });
    eject();
    const ejectedAtMs = clock.nowMs;
    await tickAt(2_000, ejectedAtMs);
    await tickAt(3_000, ejectedAtMs);
    expect(probes).toHaveLength(0);
    await tickAt(4_000, ejectedAtMs);
    expect(probes.map((probe) => probe.atMs - ejectedAtMs)).toEqual([4_000]);
    // A little shorter than the interval, so the next interval's turn finds it free.
    expect(leases).toEqual([
      { leaseMs: 1_900, purpose: 'recovery', granted: false },
      { leaseMs: 1_900, purpose: 'recovery', granted: true },
    ]);
  });

  it('never has two probes of one deployment in flight', async () => {
    let endProbe: (kind: FailureKind) => void = () => undefined;
    const { clock, probes, primary, monitor, eject } = setup({ probe: () => new Promise((resolve) => (endProbe = resolve)) });
    eject();
    const ejectedAtMs = clock.nowMs;
    const ticks: Promise<void>[] = [];
    for (const offsetMs of [2_000, 4_000, 6_000]) {
      clock.nowMs = ejectedAtMs + offsetMs;
      ticks.push(monitor.tick());
    }
    expect(probes).toHaveLength(1);
    endProbe('ok');
    await Promise.all(ticks);
    expect(primary.breaker.state).toBe('closed');
  });
});

describe('HealthMonitor: what a probe notes', () => {
  const config = configSchema.parse({
    connections: { c: { provider: 'mock' } },
    routes: { named: { targets: [{ connection: 'c', model: 'm' }] } },
  });

  it('a probe counts as trying the deployment, when it is sent', async () => {
    let nowMs = 0;
    const now = () => nowMs;
    const monitor: HealthMonitor = new HealthMonitor({
      registry: () => registry,
      cooling: new Cooling({ now }),
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
