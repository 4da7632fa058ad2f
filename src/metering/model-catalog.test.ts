import { describe, expect, it } from 'vitest';
import { lookupModel } from './model-catalog.js';

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
