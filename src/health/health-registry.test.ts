import { describe, expect, it } from 'vitest';
import { configSchema, DEFAULT_ROUTE_HEALTH, type Config } from '../config/schema.js';
import { HealthRegistry, type DeploymentHealth } from './health-registry.js';

function configWith(maxDeployments: number): Config {
  return configSchema.parse({
    direct: { max_deployments: maxDeployments },
    connections: { c: { provider: 'mock' } },
    routes: { named: { targets: [{ connection: 'c', model: 'configured' }] } },
  });
}

function registryWith(config: () => Config) {
  const forgotten: string[] = [];
  const registry = new HealthRegistry(
    { onBreaker: () => undefined, onStructural: () => undefined, onStepDown: () => undefined, onForgotten: (deployment: DeploymentHealth) => forgotten.push(deployment.key) },
    { config },
  );
  const use = (model: string) => registry.deployment('c', model, DEFAULT_ROUTE_HEALTH, config().health);
  const keys = () => registry.all().map((deployment) => deployment.key).sort();
  return { registry, use, keys, forgotten };
}

describe('HealthRegistry bounds unconfigured deployments', () => {
  it('keeps configured deployments and the most recently used unconfigured ones, up to direct.max_deployments', () => {
    const config = configWith(2);
    const { use, keys, forgotten } = registryWith(() => config);
    use('configured');
    use('a');
    use('b');
    use('a');
    use('c');
    expect(keys()).toEqual(['c/a', 'c/c', 'c/configured']);
    expect(forgotten).toEqual(['c/b']);
  });

  it('a forgotten deployment comes back with fresh state', () => {
    const config = configWith(1);
    const { use, forgotten } = registryWith(() => config);
    const first = use('a');
    first.lastError = { kind: 'server_error', message: 'boom', atMs: 0 };
    use('b');
    expect(first.forgotten).toBe(true);
    expect(use('a').lastError).toBeUndefined();
    expect(forgotten).toEqual(['c/a', 'c/b']);
  });

  it('a reload that lowers the bound applies on the next use', () => {
    let config = configWith(3);
    const { use, keys } = registryWith(() => config);
    for (const model of ['a', 'b', 'c']) use(model);
    config = configWith(1);
    use('d');
    expect(keys()).toEqual(['c/d']);
  });
});

describe('HealthRegistry remembers when a deployment was last tried', () => {
  it('at each dispatch, on its own clock', () => {
    const config = configWith(10);
    let nowMs = 1_000;
    const registry = new HealthRegistry(
      { onBreaker: () => undefined, onStructural: () => undefined, onStepDown: () => undefined, onForgotten: () => undefined },
      { config: () => config, now: () => nowMs },
    );
    const deployment = registry.deployment('c', 'configured', DEFAULT_ROUTE_HEALTH, config.health);
    expect(deployment.lastTriedAtMs).toBeUndefined();
    registry.dispatched(deployment);
    nowMs = 4_000;
    expect(deployment.lastTriedAtMs).toBe(1_000);
    registry.dispatched(deployment);
    expect(deployment.lastTriedAtMs).toBe(4_000);
  });
});
