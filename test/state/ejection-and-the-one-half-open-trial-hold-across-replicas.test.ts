import { afterEach, describe, expect, it } from 'vitest';
import { redisForThisFile } from '../support/redis-server.js';
import { attemptOn, attemptRecord, healthConfig, startReplicas, within, type HealthReplica, type StateKind } from '../support/health-replicas.js';

const redis = redisForThisFile();
const kinds: StateKind[] = redis.available ? ['memory', 'redis'] : ['memory'];

const config = healthConfig({
  connections: { east: { provider: 'mock' }, west: { provider: 'mock' } },
  routes: { chat: { health: { consecutive_failures: 2, eject_base_s: 0.5, eject_max_s: 8 }, targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'c' }] } },
});

let replicas: HealthReplica[] = [];
let prefix = 0;
afterEach(async () => {
  await Promise.all([...new Set(replicas)].map((replica) => replica.close()));
  replicas = [];
});

async function two(kind: StateKind): Promise<[HealthReplica, HealthReplica]> {
  const pair = await startReplicas(kind, config, () => redis.server(), `trial-${process.pid}-${++prefix}:`);
  replicas = pair;
  // Both replicas serve the route already: each holds a copy of the deployment's health.
  for (const replica of pair) await attemptOn(replica, east(replica), 'ok');
  return pair;
}

const east = (replica: HealthReplica) => replica.target('chat', 0);
const stateOf = (replica: HealthReplica) => replica.registry.find('east/a')?.breaker.state;

describe.each(kinds)('ejection and the half-open trial (%s)', (kind) => {
  it('an ejection on A puts the deployment out on B within 1 s, and counts and alerts once', async () => {
    const [a, b] = await two(kind);
    await attemptOn(a, east(a), 'server_error');
    await attemptOn(a, east(a), 'server_error');
    // How soon B hears of it (about 1 s at most at rest) is a loaded machine's to stretch: the bound is a hang's.
    await within(10_000, async () => (await b.door.admit(east(b), b.route())).out);
    expect(await b.door.admit(east(b), b.route())).toMatchObject({ out: true, reason: 'ejected' });
    // The ejection's figures are the fleet's.
    await within(10_000, () => b.registry.find('east/a')!.breaker.ejectedUntilMs === a.registry.find('east/a')!.breaker.ejectedUntilMs);
    const ejections = async (replica: HealthReplica) => (await replica.metrics.ejections.get()).values.reduce((sum, value) => sum + value.value, 0);
    expect((await ejections(a)) + (kind === 'redis' ? await ejections(b) : 0)).toBe(1);
  });

  it('when the ejection time is up, 10 concurrent admits spread over A and B let exactly one trial through', async () => {
    const [a, b] = await two(kind);
    await attemptOn(a, east(a), 'server_error');
    await attemptOn(a, east(a), 'server_error');
    await within(10_000, () => stateOf(b) === 'ejected');
    await within(10_000, () => b.registry.find('east/a')!.breaker.trialDue && a.registry.find('east/a')!.breaker.trialDue);
    const claimCalls: unknown[] = [];
    for (const replica of new Set([a, b])) {
      const commands = replica.link?.commands as unknown as { claimTrial?: (...args: unknown[]) => Promise<unknown> } | undefined;
      const claimTrial = commands?.claimTrial?.bind(commands);
      if (commands && claimTrial) commands.claimTrial = (...args) => (claimCalls.push(args), claimTrial(...args));
    }
    const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => (index % 2 === 0 ? a : b)).map((replica) => replica.door.admit(east(replica), replica.route())));
    const letThrough = answers.filter((answer) => !answer.out);
    expect(letThrough).toHaveLength(1);
    expect(answers.filter((answer) => answer.out).every((answer) => answer.out && answer.reason === 'ejected')).toBe(true);
    // While the trial is out, the replicas that lost it answer from what they heard, without asking Redis again.
    const claimsBefore = claimCalls.length;
    for (const replica of [a, b]) expect(await replica.door.admit(east(replica), replica.route())).toMatchObject({ out: true, reason: 'ejected' });
    if (kind === 'redis') expect(claimCalls.length - claimsBefore).toBe(0);
    const [trial] = letThrough;
    if (trial && !trial.out) trial.settle(attemptRecord('ok', east(a)));
  });

  it('the trial succeeding on A readmits the deployment on B within 1 s, and the doubling starts again', async () => {
    const [a, b] = await two(kind);
    await attemptOn(a, east(a), 'server_error');
    await attemptOn(a, east(a), 'server_error');
    await within(10_000, () => stateOf(b) === 'ejected');
    await within(10_000, () => a.registry.find('east/a')!.breaker.trialDue);
    expect((await attemptOn(a, east(a), 'ok')).out).toBe(false);
    expect(stateOf(a)).toBe('closed');
    await within(10_000, () => stateOf(b) === 'closed');
    expect((await attemptOn(b, east(b), 'ok')).out).toBe(false);
    expect(b.registry.find('east/a')!.breaker.consecutiveEjections).toBe(0);
  });

  it('a neutral trial frees the claim for another request, here or on the other replica', async () => {
    const [a, b] = await two(kind);
    await attemptOn(a, east(a), 'server_error');
    await attemptOn(a, east(a), 'server_error');
    await within(10_000, () => a.registry.find('east/a')!.breaker.trialDue && b.registry.find('east/a')?.breaker.trialDue === true);
    expect((await attemptOn(a, east(a), 'cancelled')).out).toBe(false);
    await within(10_000, async () => {
      const answer = await b.door.admit(east(b), b.route());
      if (!answer.out) answer.settle(attemptRecord('ok', east(b)));
      return !answer.out;
    });
    await within(10_000, () => stateOf(a) === 'closed');
  });

  it('when A and B trip in the same episode, the ejection doubles once', async () => {
    const [a, b] = await two(kind);
    const first = await Promise.all([a.door.admit(east(a), a.route()), b.door.admit(east(b), b.route()), a.door.admit(east(a), a.route()), b.door.admit(east(b), b.route())]);
    first.forEach((answer, index) => !answer.out && answer.settle(attemptRecord('server_error', east(index % 2 === 0 ? a : b))));
    await within(10_000, () => stateOf(a) === 'ejected' && stateOf(b) === 'ejected');
    // Each trip is decided here first and by the fleet a moment later: both end on the fleet's one ejection.
    await within(10_000, () => a.registry.find('east/a')!.breaker.ejectedUntilMs === b.registry.find('east/a')!.breaker.ejectedUntilMs);
    expect([a, b].map((replica) => replica.registry.find('east/a')!.breaker.consecutiveEjections)).toEqual([1, 1]);
    // A failed trial doubles it, once.
    await within(10_000, () => a.registry.find('east/a')!.breaker.trialDue);
    await attemptOn(a, east(a), 'server_error');
    await within(10_000, () => b.registry.find('east/a')!.breaker.consecutiveEjections === 2);
    const until = b.registry.find('east/a')!.breaker.ejectedUntilMs! - Date.now();
    expect(until).toBeGreaterThan(500);
    expect(until).toBeLessThanOrEqual(1_000);
  });

  it('alerts come once: the replica that ejected it tells it is out too long, and of its end though the other replica’s trial ended it', async () => {
    const alerting = healthConfig({ ...config, alerts: { ejected_for_s: 0.2 } });
    const pair = await startReplicas(kind, alerting, () => redis.server(), `alerts-${process.pid}-${++prefix}:`);
    replicas = pair;
    const [a, b] = pair;
    for (const replica of pair) await attemptOn(replica, east(replica), 'ok');
    await attemptOn(a, east(a), 'server_error');
    await attemptOn(a, east(a), 'server_error');
    await within(10_000, () => stateOf(b) === 'ejected');
    const alertsOf = (type: string) => [...new Set(pair)].flatMap((replica) => replica.alerts.filter((alert) => alert.type === type && alert.deployment === 'east/a'));
    await within(10_000, async () => {
      await Promise.all([a.monitor.tick(), b.monitor.tick()]);
      return alertsOf('out_too_long').length > 0;
    });
    await Promise.all([a.monitor.tick(), b.monitor.tick()]);
    expect(alertsOf('out_too_long')).toHaveLength(1);
    await within(10_000, () => b.registry.find('east/a')!.breaker.trialDue);
    expect((await attemptOn(b, east(b), 'ok')).out).toBe(false);
    await within(10_000, () => alertsOf('readmitted').length > 0);
    await within(10_000, () => stateOf(a) === 'closed');
    expect(alertsOf('readmitted')).toHaveLength(1);
    expect(a.alerts.filter((alert) => alert.type === 'readmitted')).toHaveLength(1);
  });
});
