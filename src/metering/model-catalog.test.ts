import { describe, expect, it } from 'vitest';
import { lookupModel, modelIdentity } from './model-catalog.js';

describe('lookupModel', () => {
  it('finds exact names, dated versions and provider-prefixed names', () => {
    expect(lookupModel('gpt-4.1')?.contextWindow).toBe(1_047_576);
    expect(lookupModel('gpt-4.1-mini')?.inputPerMtok).toBe(0.4);
    expect(lookupModel('gpt-4o-2024-08-06')?.contextWindow).toBe(128_000);
    expect(lookupModel('claude-sonnet-4-5-20250929')?.outputPerMtok).toBe(15);
    expect(lookupModel('us.anthropic.claude-haiku-4-5-20251001-v1:0')?.inputPerMtok).toBe(1);
    expect(lookupModel('models/gemini-2.5-flash')?.contextWindow).toBe(1_048_576);
  });

  it('does not guess', () => {
    expect(lookupModel('gpt-mock')).toBeUndefined();
    expect(lookupModel('gpt-4.10')).toBeUndefined();
  });
});

describe('cache prices', () => {
  it("follow Anthropic's multipliers: reads 0.1×, 5-minute writes 1.25× the input price", () => {
    for (const model of ['claude-opus-4-1', 'claude-sonnet-4-5', 'claude-sonnet-4', 'claude-haiku-4-5', 'claude-3-5-haiku']) {
      const facts = lookupModel(model)!;
      expect(facts.cacheReadPerMtok, model).toBeCloseTo(facts.inputPerMtok * 0.1, 10);
      expect(facts.cacheWritePerMtok, model).toBeCloseTo(facts.inputPerMtok * 1.25, 10);
    }
  });

  it('list OpenAI cached input below the input price, with no write surcharge', () => {
    for (const model of ['gpt-5', 'gpt-5-mini', 'gpt-5-nano', 'gpt-4.1', 'gpt-4.1-mini', 'gpt-4.1-nano', 'gpt-4o', 'gpt-4o-mini', 'o3', 'o4-mini']) {
      const facts = lookupModel(model)!;
      expect(facts.cacheReadPerMtok, model).toBeLessThan(facts.inputPerMtok);
      expect(facts.cacheWritePerMtok, model).toBeUndefined();
    }
  });
});

describe('modelIdentity', () => {
  it('is the same catalog model for Claude on Anthropic, Bedrock (inference profiles and ARNs too) and Vertex', () => {
    for (const spelling of [
      'claude-sonnet-4-5',
      'claude-sonnet-4-5-20250929',
      'anthropic.claude-sonnet-4-5-20250929-v1:0',
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
      'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      'claude-sonnet-4-5@20250929',
    ]) {
      expect(modelIdentity(spelling), spelling).toBe('claude-sonnet-4-5');
    }
    expect(modelIdentity('claude-sonnet-4-20250514')).toBe('claude-sonnet-4');
    expect(modelIdentity('claude-haiku-4-5-20251001')).toBe('claude-haiku-4-5');
    expect(modelIdentity('claude-3-5-haiku-latest')).toBe('claude-3-5-haiku');
  });

  it.each([
    ['claude-opus-4-1', 'claude-opus-4-1-20250805', 'anthropic.claude-opus-4-1-20250805-v1:0', 'claude-opus-4-1@20250805'],
    ['claude-sonnet-4-5', 'claude-sonnet-4-5-20250929', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5@20250929'],
    ['claude-sonnet-4', 'claude-sonnet-4-20250514', 'eu.anthropic.claude-sonnet-4-20250514-v1:0', 'claude-sonnet-4@20250514'],
    ['claude-haiku-4-5', 'claude-haiku-4-5-20251001', 'global.anthropic.claude-haiku-4-5-20251001-v1:0', 'claude-haiku-4-5@20251001'],
    ['claude-3-5-haiku', 'claude-3-5-haiku-20241022', 'anthropic.claude-3-5-haiku-20241022-v1:0', 'claude-3-5-haiku@20241022'],
  ])('is %s on its three homes: Anthropic (%s), Bedrock (%s) and Vertex (%s), with one list price', (identity, anthropic, bedrock, vertex) => {
    for (const spelling of [anthropic, bedrock, vertex]) {
      expect(modelIdentity(spelling), spelling).toBe(identity);
      expect(lookupModel(spelling), spelling).toBe(lookupModel(identity));
    }
  });

  it('is the same Gemini on the Gemini API and on Vertex (its publisher path too)', () => {
    for (const spelling of ['gemini-2.5-pro', 'models/gemini-2.5-pro', 'publishers/google/models/gemini-2.5-pro', 'gemini-2.5-pro-001']) {
      expect(modelIdentity(spelling), spelling).toBe('gemini-2.5-pro');
    }
  });

  it('is the same catalog model for GPT on OpenAI (dated snapshots), Azure deployments named after it and OpenAI-compatible hosts', () => {
    for (const spelling of ['gpt-4.1', 'gpt-4.1-2025-04-14', 'openai/gpt-4.1']) expect(modelIdentity(spelling), spelling).toBe('gpt-4.1');
    expect(modelIdentity('gpt-4o-2024-08-06')).toBe('gpt-4o');
    expect(modelIdentity('gpt-4o-mini-2024-07-18')).toBe('gpt-4o-mini');
    expect(modelIdentity('gpt-4.1-nano-2025-04-14')).toBe('gpt-4.1-nano');
    expect(modelIdentity('gpt-5-2025-08-07')).toBe('gpt-5');
    expect(modelIdentity('gpt-5-mini-2025-08-07')).toBe('gpt-5-mini');
  });

  it('is the same catalog model for Gemini with or without models/, and its releases and dated previews', () => {
    for (const spelling of ['gemini-2.5-flash', 'models/gemini-2.5-flash', 'publishers/google/models/gemini-2.5-flash', 'gemini-2.5-flash-preview-05-20', 'gemini-2.5-flash-preview-09-2025']) {
      expect(modelIdentity(spelling), spelling).toBe('gemini-2.5-flash');
    }
    expect(modelIdentity('gemini-2.5-flash-lite-preview-06-17')).toBe('gemini-2.5-flash-lite');
    expect(modelIdentity('models/gemini-2.5-pro')).toBe('gemini-2.5-pro');
  });

  it('keeps other models of a family apart, even where their names start with a catalog name', () => {
    expect(modelIdentity('claude-sonnet-4-5')).not.toBe(modelIdentity('claude-sonnet-4-20250514'));
    expect(modelIdentity('gpt-4.1-mini')).not.toBe(modelIdentity('gpt-4.1'));
    for (const other of ['o3-mini-2025-01-31', 'gpt-5-codex', 'gpt-5-chat-latest', 'gpt-4o-audio-preview', 'gemini-2.5-flash-image-preview', 'claude-sonnet-4-6', 'gpt-4.10', 'gpt-5.1']) {
      expect(modelIdentity(other), other).toBe(other);
    }
  });

  it('leaves names the catalog does not know exactly as written', () => {
    expect(modelIdentity('gpt-mock')).toBe('gpt-mock');
    expect(modelIdentity('models/gemini-mock')).toBe('models/gemini-mock');
    expect(modelIdentity('my-gpt-deployment')).toBe('my-gpt-deployment');
  });
});
