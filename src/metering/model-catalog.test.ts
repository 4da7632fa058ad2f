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
