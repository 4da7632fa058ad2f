import { describe, expect, it } from 'vitest';
import { configSchema } from '../config/schema.js';
import { deploymentPrice } from './deployment-price.js';

const config = configSchema.parse({
  connections: {
    anthropic: { provider: 'anthropic', api_key: 'x' },
    bedrock: { provider: 'bedrock', region: 'us-east-1', api_key: 'x' },
    local: { provider: 'openai-compatible', base_url: 'http://127.0.0.1:8000', api_key: 'x' },
  },
  routes: {
    chat: {
      targets: [
        { connection: 'anthropic', model: 'claude-sonnet-4-5', price: { input_per_mtok: 2.4, output_per_mtok: 12 } },
        { connection: 'local', model: 'llama-3-70b', price: { input_per_mtok: 0.5, output_per_mtok: 0.5 } },
      ],
    },
    cheap: { targets: [{ connection: 'anthropic', model: 'claude-sonnet-4-5' }, { connection: 'anthropic', model: 'claude-haiku-4-5' }] },
    homes: {
      targets: [
        { connection: 'bedrock', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' },
        { connection: 'bedrock', model: 'global.anthropic.claude-sonnet-4-5-20250929-v1:0' },
        { connection: 'bedrock', model: 'eu.anthropic.claude-haiku-4-5-20251001-v1:0', price: { input_per_mtok: 1, output_per_mtok: 5 } },
      ],
    },
  },
});

describe('deploymentPrice', () => {
  it("uses the route's own target: its override, or the catalog when it has none", () => {
    expect(deploymentPrice(config, 'chat', { connection: 'anthropic', model: 'claude-sonnet-4-5' })).toEqual({ inputPerMtok: 2.4, outputPerMtok: 12 });
    expect(deploymentPrice(config, 'cheap', { connection: 'anthropic', model: 'claude-sonnet-4-5' })).toMatchObject({ inputPerMtok: 3, cacheReadPerMtok: 0.3 });
  });

  it("falls back to another route's override for the same deployment (probes, direct requests)", () => {
    expect(deploymentPrice(config, null, { connection: 'local', model: 'llama-3-70b' })).toEqual({ inputPerMtok: 0.5, outputPerMtok: 0.5 });
    expect(deploymentPrice(config, 'local/llama-3-70b', { connection: 'local', model: 'llama-3-70b' })).toEqual({ inputPerMtok: 0.5, outputPerMtok: 0.5 });
  });

  it('falls back to the catalog, and to nothing for an unknown model', () => {
    expect(deploymentPrice(config, null, { connection: 'anthropic', model: 'claude-haiku-4-5' })).toMatchObject({ inputPerMtok: 1, outputPerMtok: 5 });
    expect(deploymentPrice(config, 'removed-route', { connection: 'local', model: 'mistral-small' })).toBeUndefined();
  });

  it("prices the catalog's model at its home: a regional Bedrock profile 10 % above the global one, cache rates too; an override as written", () => {
    expect(deploymentPrice(config, 'homes', { connection: 'bedrock', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' })).toEqual({
      inputPerMtok: 3.3,
      outputPerMtok: 16.5,
      cacheReadPerMtok: 0.33,
      cacheWritePerMtok: 4.125,
    });
    expect(deploymentPrice(config, 'homes', { connection: 'bedrock', model: 'global.anthropic.claude-sonnet-4-5-20250929-v1:0' })).toMatchObject({ inputPerMtok: 3, outputPerMtok: 15 });
    expect(deploymentPrice(config, null, { connection: 'bedrock', model: 'eu.anthropic.claude-haiku-4-5-20251001-v1:0' })).toEqual({ inputPerMtok: 1, outputPerMtok: 5 });
  });
});
