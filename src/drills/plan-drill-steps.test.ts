import { expect, it } from 'vitest';
import { configSchema } from '../config/schema.js';
import { resolveRoute } from '../routing/resolve-route.js';
import { planDrillSteps } from './plan-drill-steps.js';

const config = configSchema.parse({
  connections: { east: { provider: 'mock' }, west: { provider: 'mock' } },
  routes: {
    chat: {
      strategy: 'weighted',
      targets: [
        { connection: 'east', model: 'a' },
        { connection: 'west', model: 'b' },
        { connection: 'west', model: 'c' },
      ],
    },
    single: { targets: [{ connection: 'east', model: 'only' }] },
  },
});

it('plans every target alone, then the chain walk to each later target with those before it forced to fail', () => {
  const route = resolveRoute(config, 'chat');
  const [a, b, c] = route.targets;
  const steps = planDrillSteps(route);
  expect(steps.map((step) => [step.step, step.position, step.target.routedModel])).toEqual([
    ['target', 1, 'a'],
    ['target', 2, 'b'],
    ['target', 3, 'c'],
    ['chain', 2, 'b'],
    ['chain', 3, 'c'],
  ]);
  for (const step of steps.slice(0, 3)) {
    expect(step.route.targets).toEqual([step.target]);
    expect(step.forcedFailures.size).toBe(0);
  }
  expect(steps[3]!.route.targets).toEqual([a, b]);
  expect([...steps[3]!.forcedFailures]).toEqual([a]);
  expect(steps[4]!.route.targets).toEqual([a, b, c]);
  expect([...steps[4]!.forcedFailures]).toEqual([a, b]);
  // The narrowed route keeps the route's own name and policy.
  for (const step of steps) expect(step.route).toMatchObject({ name: 'chat', policy: route.policy });
});

it('a route of one target has no chain walk', () => {
  expect(planDrillSteps(resolveRoute(config, 'single')).map((step) => step.step)).toEqual(['target']);
});
