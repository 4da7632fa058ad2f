import { describe, expect, it } from 'vitest';
import { configSchema } from '../config/schema.js';
import { modelChanges } from './model-change.js';
import { resolveRoute } from './resolve-route.js';

function configWith(targets: object[]) {
  return configSchema.parse({
    connections: {
      openai: { provider: 'openai', api_key: 'sk-test' },
      anthropic: { provider: 'anthropic', api_key: 'sk-ant-test' },
      bedrock: { provider: 'bedrock', region: 'us-east-1', api_key: 'bedrock-test' },
      azure: { provider: 'azure-openai', base_url: 'https://contoso.openai.azure.com', api_key: 'azure-test' },
      gemini: { provider: 'gemini', api_key: 'AIza-test' },
      mock: { provider: 'mock' },
    },
    routes: { r: { targets } },
  });
}

function changes(targets: object[]) {
  const config = configWith(targets);
  return modelChanges(config.routes.r!.targets);
}

describe('modelChanges', () => {
  it('infers a change where the catalog model differs from the first target, whatever the provider spells it', () => {
    expect(
      changes([
        { connection: 'anthropic', model: 'claude-sonnet-4-5' },
        { connection: 'bedrock', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' },
        { connection: 'openai', model: 'gpt-4.1' },
        { connection: 'anthropic', model: 'claude-haiku-4-5' },
      ]),
    ).toEqual([
      { modelChange: false, inferred: true },
      { modelChange: false, inferred: true },
      { modelChange: true, inferred: true },
      { modelChange: true, inferred: true },
    ]);
    expect(changes([{ connection: 'openai', model: 'gpt-4.1' }, { connection: 'azure', model: 'gpt-4.1' }, { connection: 'openai', model: 'gpt-4.1-2025-04-14' }]).map((c) => c.modelChange)).toEqual([false, false, false]);
    expect(changes([{ connection: 'gemini', model: 'gemini-2.5-flash' }, { connection: 'gemini', model: 'models/gemini-2.5-flash' }, { connection: 'gemini', model: 'gemini-2.5-pro' }]).map((c) => c.modelChange)).toEqual([false, false, true]);
  });

  it("infers no change across Claude's three homes, whichever home comes first, and a change to another Claude on any of them", () => {
    const changesOf = (order: [string, string][]) => {
      const config = configWith(order.map(([connection, model]) => ({ connection, model })));
      return modelChanges(config.routes.r!.targets).map((change) => change.modelChange);
    };
    const homes: [string, string][] = [
      ['anthropic', 'claude-sonnet-4-5'],
      ['vertex', 'claude-sonnet-4-5@20250929'],
      ['bedrock', 'global.anthropic.claude-sonnet-4-5-20250929-v1:0'],
    ];
    for (const first of homes) {
      const order = [first, ...homes.filter((home) => home !== first), ['vertex', 'claude-haiku-4-5@20251001'] as [string, string]];
      expect(changesOf(order), first[1]).toEqual([false, false, false, true]);
    }
  });

  it('compares with the target tried first when all is well: the lowest priority, the first written among equals', () => {
    expect(
      changes([
        { connection: 'anthropic', model: 'claude-sonnet-4-5', priority: 2 },
        { connection: 'openai', model: 'gpt-4.1', priority: 1 },
        { connection: 'azure', model: 'gpt-4.1', priority: 1 },
      ]).map((c) => c.modelChange),
    ).toEqual([true, false, false]);
  });

  it('compares names the catalog does not know exactly', () => {
    expect(changes([{ connection: 'openai', model: 'my-fine-tune' }, { connection: 'azure', model: 'my-fine-tune' }, { connection: 'azure', model: 'my-fine-tune-v2' }]).map((c) => c.modelChange)).toEqual([false, false, true]);
  });

  it('keeps model_change where it is written, either way, the first target included', () => {
    expect(
      changes([
        { connection: 'openai', model: 'gpt-4.1', model_change: true },
        { connection: 'anthropic', model: 'claude-sonnet-4-5', model_change: false },
        { connection: 'azure', model: 'gpt-4.1' },
      ]),
    ).toEqual([
      { modelChange: true, inferred: false },
      { modelChange: false, inferred: false },
      { modelChange: false, inferred: true },
    ]);
  });

  it("reads a target's model before its directives: the same model acted out failing", () => {
    expect(changes([{ connection: 'mock', model: 'gpt-4.1?status=429&retry_after=1' }, { connection: 'openai', model: 'gpt-4.1' }, { connection: 'mock', model: 'gpt-mock?status=503' }, { connection: 'mock', model: 'gpt-mock' }]).map((c) => c.modelChange)).toEqual([false, false, true, true]);
    // On any provider: the mock plays Vertex behind a `provider: vertex` connection, and no provider's model id has a `?`.
    expect(changes([{ connection: 'openai', model: 'gpt-4.1?x=1' }, { connection: 'openai', model: 'gpt-4.1' }]).map((c) => c.modelChange)).toEqual([false, false]);
  });
});

describe('resolveRoute', () => {
  it('orders inferred model changes after every same-model target', () => {
    const config = configWith([
      { connection: 'openai', model: 'gpt-4.1' },
      { connection: 'anthropic', model: 'claude-sonnet-4-5' },
      { connection: 'azure', model: 'gpt-4.1' },
    ]);
    expect(resolveRoute(config, 'r').targets.map((target) => [target.connectionName, target.modelChange])).toEqual([
      ['openai', false],
      ['azure', false],
      ['anthropic', true],
    ]);
  });
});
