import { describe, expect, it } from 'vitest';
import { configSchema } from '../config/schema.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import type { FailureKind } from '../core/failure-kind.js';
import { ConnectionLoad } from '../health/connection-load.js';
import { Cooling } from '../health/cooling.js';
import type { Out, Permit } from '../health/health-door.js';
import { HealthRegistry } from '../health/health-registry.js';
import { LocalHealthDoor } from '../health/local-health-door.js';
import { LatencyTracker } from '../health/latency-tracker.js';
import { resolveRoute } from '../routing/resolve-route.js';
import { describeDeployment } from './describe-deployment.js';

const config = configSchema.parse({
  connections: { east: { provider: 'mock' }, west: { provider: 'mock' } },
  routes: {
    chat: {
      health: { consecutive_failures: 2, eject_base_s: 10 },
      targets: [
        { connection: 'east', model: 'org/a' },
        { connection: 'west', model: 'b' },
      ],
    },
  },
});
const route = resolveRoute(config, 'chat');
const eastA = route.targets[0]!;
const at = (ms: number) => new Date(ms).toISOString();

/** The health machinery on one fake clock, and the row `/admin/health` would show for a deployment. */
function gateway(startMs = 1_000) {
  const clock = { nowMs: startMs };
  const now = () => clock.nowMs;
  const registry = new HealthRegistry(
    { onBreaker: () => undefined, onStructural: () => undefined, onStepDown: () => undefined, onForgotten: () => undefined },
    { config: () => config, now },
  );
  const cooling = new Cooling({ now });
  const door = new LocalHealthDoor({ registry, cooling, load: new ConnectionLoad(), latency: new LatencyTracker(), config: () => config, now });
  /** One attempt to east/org/a, sent now, ending `tookMs` later as `kind`. */
  const attempt = (kind: FailureKind, extra: Partial<AttemptRecord> = {}, tookMs = 0) => {
    const permit = door.admit(eastA, route) as Permit | Out;
    if (permit.out) throw new Error(`not admitted: ${permit.reason}`);
    clock.nowMs += tookMs;
    permit.settle({ n: 1, connection: 'east', provider: 'mock', model: 'org/a', kind, startedMs: 0, latencyMs: tookMs, committed: false, malformedEvents: 0, ...extra });
  };
  const row = (key = 'east/org/a', where = { connection: 'east', model: 'org/a' }) =>
    describeDeployment({ key, ...where, health: registry.find(key), cooling: cooling.spell(key), keyRejected: registry.keyRejected(where.connection), nextRecoveryProbeAtMs: undefined }, (text) => text);
  return { clock, registry, cooling, attempt, row };
}

describe('describeDeployment: a deployment no request has used', () => {
  it('has its connection, model and every field, healthy with no traffic yet', () => {
    const { row } = gateway();
    expect(row()).toEqual({
      deployment: 'east/org/a',
      connection: 'east',
      model: 'org/a',
      state: 'healthy',
      since: null,
      reason: 'no traffic yet',
      structural_cause: null,
      ejected_until: null,
      consecutive_ejections: 0,
      last_tried_at: null,
      next_probe_at: null,
      cooling_until: null,
      cooling_cause: null,
      last_error: null,
      quota: null,
    });
  });

  it('is cooling, with its cause, when another replica cooled it', () => {
    const { cooling, row, clock } = gateway();
    cooling.adopt('east/org/a', 20_000, { coolingMs: 30_000, cause: { kind: 'rate_limit', httpStatus: 429, retryAfterMs: 30_000 } });
    expect(row()).toMatchObject({
      state: 'cooling',
      since: at(clock.nowMs - 10_000),
      reason: '429 rate_limit, retry-after 30 s',
      cooling_until: at(clock.nowMs + 20_000),
      cooling_cause: { kind: 'rate_limit', http_status: 429, retry_after_ms: 30_000 },
    });
  });
});

describe('describeDeployment: ejection', () => {
  it('ejected until its ejection ends, then half_open waiting for its trial, with its last try', () => {
    const { attempt, row, clock } = gateway();
    attempt('server_error', { message: 'boom' }, 50);
    clock.nowMs = 5_000;
    const lastTryMs = clock.nowMs;
    attempt('server_error', { message: 'boom' }, 50);
    const ejectedAtMs = lastTryMs + 50;
    const ejectedUntilMs = ejectedAtMs + 10_000;
    expect(row()).toMatchObject({
      state: 'ejected',
      since: at(ejectedAtMs),
      reason: '2 consecutive failures',
      ejected_until: at(ejectedUntilMs),
      consecutive_ejections: 1,
      last_tried_at: at(lastTryMs),
      last_error: { kind: 'server_error', message: 'boom', at: at(ejectedAtMs) },
    });

    clock.nowMs = ejectedUntilMs - 1;
    expect(row().state).toBe('ejected');
    // No request has asked yet, so the breaker has not turned: the row says what holds all the same.
    clock.nowMs = ejectedUntilMs + 120_000;
    expect(row()).toMatchObject({
      state: 'half_open',
      since: at(ejectedUntilMs),
      reason: 'ejection time is up: waiting for its trial request',
      ejected_until: at(ejectedUntilMs),
      last_tried_at: at(lastTryMs),
    });
  });

  it('half_open while its trial is in flight, the trial as its last try; closed after it succeeds', () => {
    const { attempt, row, clock, registry } = gateway();
    attempt('server_error');
    attempt('server_error');
    const ejectedUntilMs = registry.find('east/org/a')!.breaker.ejectedUntilMs!;
    clock.nowMs = ejectedUntilMs + 3_000;
    const trialSentMs = clock.nowMs;
    attempt('server_error', {}, 0);
    // That trial failed: ejected again, for twice as long.
    expect(row()).toMatchObject({ state: 'ejected', reason: 'trial request failed', consecutive_ejections: 2, last_tried_at: at(trialSentMs) });
    clock.nowMs = registry.find('east/org/a')!.breaker.ejectedUntilMs!;
    attempt('ok');
    expect(row()).toMatchObject({ state: 'healthy', reason: 'trial request succeeded', since: at(clock.nowMs), ejected_until: null, consecutive_ejections: 0 });
  });
});

describe('describeDeployment: cooling', () => {
  it('a 429 says so, with its Retry-After, since the 429 — not the state the deployment started in', () => {
    const { attempt, row, clock } = gateway();
    attempt('ok');
    clock.nowMs = 60_000;
    attempt('rate_limit', { httpStatus: 429, retryAfterMs: 30_000 });
    expect(row()).toMatchObject({
      state: 'cooling',
      since: at(60_000),
      reason: '429 rate_limit, retry-after 30 s',
      cooling_until: at(90_000),
      cooling_cause: { kind: 'rate_limit', http_status: 429, retry_after_ms: 30_000 },
      last_tried_at: at(60_000),
    });
    clock.nowMs = 90_000;
    expect(row()).toMatchObject({ state: 'healthy', cooling_until: null, cooling_cause: null });
  });

  it('names the default wait when the 429 named none, and the cap when it asked for more', () => {
    const first = gateway();
    first.attempt('rate_limit', { httpStatus: 429 });
    expect(first.row()).toMatchObject({ reason: '429 rate_limit, no retry-after: the default 30 s', cooling_cause: { retry_after_ms: null } });

    const second = gateway();
    second.attempt('rate_limit', { httpStatus: 429, retryAfterMs: 600_000 });
    expect(second.row()).toMatchObject({ reason: '429 rate_limit, retry-after 600 s, capped at 300 s', cooling_until: at(1_000 + 300_000) });
  });

  it('a cooling heard from a replica that did not share its cause says so', () => {
    const { cooling, row } = gateway();
    cooling.adopt('east/org/a', 5_000, { coolingMs: 5_000 });
    expect(row()).toMatchObject({ state: 'cooling', reason: 'cooling; another replica (of an older version) set it without its cause', cooling_cause: null });
  });

  it('an ejection outranks cooling, which is still reported beside it', () => {
    const { attempt, row, cooling } = gateway();
    attempt('server_error');
    attempt('server_error');
    cooling.cool('east/org/a', { kind: 'rate_limit', httpStatus: 429, retryAfterMs: 60_000 });
    expect(row()).toMatchObject({ state: 'ejected', reason: '2 consecutive failures', cooling_cause: { kind: 'rate_limit', http_status: 429, retry_after_ms: 60_000 } });
  });
});

describe('describeDeployment: a rejected key', () => {
  it('puts an unused deployment of the connection in the structural state, with its connection and model', () => {
    const { registry, row, clock } = gateway();
    const used = registry.deployment('west', 'b', route.policy.health!, config.health);
    const permit = used.breaker.admit()!;
    registry.settled(used, permit, 'credential', 'bad key');
    expect(row('west/other', { connection: 'west', model: 'other' })).toMatchObject({
      connection: 'west',
      model: 'other',
      state: 'structural',
      structural_cause: 'credential',
      since: null,
      reason: 'the connection key was rejected',
    });
    expect(row('west/b', { connection: 'west', model: 'b' })).toMatchObject({ state: 'structural', since: at(clock.nowMs), reason: 'credential rejected' });
  });
});
