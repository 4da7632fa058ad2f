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
import { DrillHealthDoor } from './drill-health-door.js';

const config = configSchema.parse({
  connections: { east: { provider: 'mock', max_in_flight: 1 }, west: { provider: 'mock' } },
  routes: {
    chat: {
      health: { consecutive_failures: 1, eject_base_s: 60 },
      targets: [{ connection: 'east', model: 'a' }, { connection: 'west', model: 'b' }],
    },
  },
});
const route = resolveRoute(config, 'chat');
const [eastA, westB] = route.targets as [(typeof route.targets)[number], (typeof route.targets)[number]];

function doors() {
  const registry = new HealthRegistry(
    { onBreaker: () => undefined, onStructural: () => undefined, onStepDown: () => undefined, onForgotten: () => undefined },
    { config: () => config },
  );
  const cooling = new Cooling();
  const load = new ConnectionLoad();
  const engine = new LocalHealthDoor({ registry, cooling, load, latency: new LatencyTracker(), config: () => config });
  return { engine, registry, cooling, load, drill: new DrillHealthDoor({ engine, registry, config: () => config }) };
}

function record(kind: FailureKind, model = 'a'): AttemptRecord {
  return { n: 1, connection: model === 'a' ? 'east' : 'west', provider: 'mock', model, kind, startedMs: 0, latencyMs: 1, committed: false, malformedEvents: 0 };
}

async function permitted(answer: Permit | Out | Promise<Permit | Out>): Promise<Permit> {
  const settled = await answer;
  expect(settled.out).toBe(false);
  return settled as Permit;
}

describe('DrillHealthDoor', () => {
  it('plans the targets as given, cooling ones included', () => {
    const { drill, cooling } = doors();
    cooling.cool('east/a', { kind: 'rate_limit', retryAfterMs: 60_000 });
    expect(drill.plan(route)).toEqual([eastA, westB]);
  });

  it('admits ejected, structural and cooling targets, which callers are kept from', async () => {
    const { drill, engine, cooling } = doors();
    (await permitted(engine.admit(eastA, route))).settle(record('server_error'));
    expect(await engine.admit(eastA, route)).toMatchObject({ out: true, reason: 'ejected' });
    (await permitted(drill.admit(eastA, route))).settle(record('server_error'));

    (await permitted(engine.admit(westB, route))).settle(record('credential', 'b'));
    expect(await engine.admit(westB, route)).toMatchObject({ out: true, reason: 'structural' });
    cooling.cool('west/b', { kind: 'rate_limit', retryAfterMs: 60_000 });
    (await permitted(drill.admit(westB, route))).settle(record('credential', 'b'));
  });

  it('a real failure feeds health through the engine permit: a rejected key is structural at once', async () => {
    const { drill, registry } = doors();
    (await permitted(drill.admit(westB, route))).settle(record('credential', 'b'));
    expect(registry.keyRejected('west')).toBe(true);
  });

  it('a success on a structural deployment re-admits it, as a probe would', async () => {
    const { drill, engine, registry } = doors();
    (await permitted(engine.admit(westB, route))).settle(record('credential', 'b'));
    (await permitted(drill.admit(westB, route))).settle(record('ok', 'b'));
    expect(registry.keyRejected('west')).toBe(false);
    await permitted(engine.admit(westB, route));
  });

  it('a busy connection is still out, and the door says it saw one', async () => {
    const { drill, load } = doors();
    expect(load.tryAcquire('east', 1)).toBe(true);
    expect(drill.sawBusy).toBe(false);
    expect(await drill.admit(eastA, route)).toMatchObject({ out: true, reason: 'busy' });
    expect(drill.sawBusy).toBe(true);
  });
});
