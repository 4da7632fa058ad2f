import { describe, expect, it } from 'vitest';
import { homePriceFactor } from './home-price.js';

describe('homePriceFactor', () => {
  it('charges Vertex regional endpoints 10 % above the global one for Sonnet 4.5 and Haiku 4.5', () => {
    expect(homePriceFactor('vertex', 'global', 'claude-sonnet-4-5@20250929')).toBe(1);
    expect(homePriceFactor('vertex', 'us-east5', 'claude-sonnet-4-5@20250929')).toBe(1.1);
    expect(homePriceFactor('vertex', 'europe-west1', 'claude-haiku-4-5@20251001')).toBe(1.1);
  });

  it("charges Bedrock's in-region and geographic profiles 10 % above the global profile for them", () => {
    expect(homePriceFactor('bedrock', undefined, 'global.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe(1);
    expect(homePriceFactor('bedrock', undefined, 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/global.anthropic.claude-haiku-4-5-20251001-v1:0')).toBe(1);
    expect(homePriceFactor('bedrock', undefined, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe(1.1);
    expect(homePriceFactor('bedrock', undefined, 'eu.anthropic.claude-haiku-4-5-20251001-v1:0')).toBe(1.1);
    expect(homePriceFactor('bedrock', undefined, 'anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe(1.1);
  });

  it('leaves older Claude models at one price everywhere', () => {
    for (const [provider, location, model] of [
      ['vertex', 'us-east5', 'claude-sonnet-4@20250514'],
      ['vertex', 'us-east5', 'claude-opus-4-1@20250805'],
      ['bedrock', undefined, 'us.anthropic.claude-3-5-haiku-20241022-v1:0'],
    ] as const) {
      expect(homePriceFactor(provider, location, model), model).toBe(1);
    }
  });

  it("leaves Anthropic's own API, Gemini on Vertex and models the catalog does not know at the list price", () => {
    expect(homePriceFactor('anthropic', undefined, 'claude-sonnet-4-5-20250929')).toBe(1);
    expect(homePriceFactor('vertex', 'us-central1', 'gemini-2.5-pro')).toBe(1);
    expect(homePriceFactor('vertex', 'us-east5', 'claude-sonnet-4-6@20260101')).toBe(1);
    expect(homePriceFactor('mock', undefined, 'claude-sonnet-4-5?status=529')).toBe(1);
  });

  it('reads a location only for Vertex', () => {
    expect(homePriceFactor('anthropic', 'us-east5', 'claude-sonnet-4-5')).toBe(1);
    expect(homePriceFactor('bedrock', 'global', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe(1.1);
  });
});
