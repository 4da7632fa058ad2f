import { describe, expect, it } from 'vitest';
import { configSchema } from '../config/schema.js';
import { sessionHash } from '../dialects/shared/session-id.js';
import { resolveRoute } from './resolve-route.js';
import { SessionAffinity } from './session-affinity.js';
import { LocalSessionBindings } from './session-bindings.js';

function configWith(route: object) {
  return configSchema.parse({
    connections: { c: { provider: 'mock' } },
    routes: { r: { strategy: 'weighted', targets: [{ connection: 'c', model: 'a' }, { connection: 'c', model: 'b' }], ...route } },
  });
}

describe('SessionAffinity', () => {
  it('is new at first, bound while the bound target serves, moved when another does; the binding follows whoever served', async () => {
    const route = resolveRoute(configWith({}), 'r');
    const [a, b] = route.targets;
    const affinity = new SessionAffinity(new LocalSessionBindings());

    const first = await affinity.lookup(route, 'session-1');
    expect(first!.bound).toBeUndefined();
    expect(affinity.served(first!, a!)).toBe('new');
    const second = await affinity.lookup(route, 'session-1');
    expect(second!.bound).toBe(a);
    expect(affinity.served(second!, a!)).toBe('bound');
    expect(affinity.served((await affinity.lookup(route, 'session-1'))!, b!)).toBe('moved');
    expect((await affinity.lookup(route, 'session-1'))!.bound).toBe(b);
    // Another session, and the same session on another route, have bindings of their own.
    expect((await affinity.lookup(route, 'session-2'))!.bound).toBeUndefined();
    expect((await affinity.lookup({ ...route, name: 'other' }, 'session-1'))!.bound).toBeUndefined();
  });

  it('counts the idle time again from when a target served, so a turn longer than idle_s keeps its binding', async () => {
    const route = resolveRoute(configWith({ affinity: { idle_s: 1 } }), 'r');
    const clock = { nowMs: 0 };
    const affinity = new SessionAffinity(new LocalSessionBindings({ now: () => clock.nowMs }));
    affinity.served((await affinity.lookup(route, 'session-1'))!, route.targets[0]!);
    const longTurn = (await affinity.lookup(route, 'session-1'))!;
    clock.nowMs = 900;
    expect(affinity.served(longTurn, route.targets[0]!)).toBe('bound');
    clock.nowMs = 1_800;
    expect((await affinity.lookup(route, 'session-1'))!.bound).toBe(route.targets[0]);
  });

  it('keeps the session hash, never the id, in the binding key, and the idle time from the route', async () => {
    const route = resolveRoute(configWith({ affinity: { idle_s: 2.5 } }), 'r');
    const binding = await new SessionAffinity(new LocalSessionBindings()).lookup(route, sessionHash('user@example.com'));
    expect(binding!.key).toMatch(/^r:[0-9a-f]{32}$/);
    expect(binding!.idleMs).toBe(2_500);
  });

  it('has nothing to say without a session, or on a route with affinity off', async () => {
    const affinity = new SessionAffinity(new LocalSessionBindings());
    expect(await affinity.lookup(resolveRoute(configWith({}), 'r'), undefined)).toBeUndefined();
    expect(await affinity.lookup(resolveRoute(configWith({ affinity: 'off' }), 'r'), 'session-1')).toBeUndefined();
  });

  it('takes a binding to a target the route no longer has for none', async () => {
    const bindings = new LocalSessionBindings();
    const affinity = new SessionAffinity(bindings);
    const before = resolveRoute(configWith({}), 'r');
    affinity.served((await affinity.lookup(before, 'session-1'))!, before.targets[1]!);
    const after = resolveRoute(configWith({ targets: [{ connection: 'c', model: 'a' }] }), 'r');
    const binding = await affinity.lookup(after, 'session-1');
    expect(binding!.bound).toBeUndefined();
    expect(affinity.served(binding!, after.targets[0]!)).toBe('new');
  });
});
