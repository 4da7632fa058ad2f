import { describe, expect, it } from 'vitest';
import type { CacheablePrompt, PromptBlock } from './cacheable-prompt.js';
import { MIN_CACHED_PROMPT_TOKENS, PromptCache } from './prompt-cache.js';

/** A block of `tokens` tokens (4 characters each). */
function block(name: string, tokens: number, breakpoint?: PromptBlock['breakpoint']): PromptBlock {
  return { key: JSON.stringify(name), characters: tokens * 4, ...(breakpoint ? { breakpoint } : {}) };
}

const explicit = (...blocks: PromptBlock[]): CacheablePrompt => ({ blocks, caching: 'explicit' });
const automatic = (...blocks: PromptBlock[]): CacheablePrompt => ({ blocks, caching: 'automatic' });

const system = 2_000;
const minute = 60_000;

describe('explicit caching (Anthropic, Bedrock)', () => {
  it('writes the prefix up to the last breakpoint, then reads it on the next turn and writes what the turn added', () => {
    const cache = new PromptCache();
    const firstTurn = explicit(block('system', system, '5m'), block('q1', 10, '5m'), block('unmarked tail', 5));
    expect(cache.use('key model', firstTurn, 0)).toEqual({ readTokens: 0, writeTokens: system + 10, writeTtl: '5m' });
    const secondTurn = explicit(block('system', system, '5m'), block('q1', 10), block('a1', 8), block('q2', 20, '1h'));
    expect(cache.use('key model', secondTurn, minute)).toEqual({ readTokens: system + 10, writeTokens: 28, writeTtl: '1h' });
    expect(cache.use('key model', secondTurn, 2 * minute)).toEqual({ readTokens: system + 38, writeTokens: 0, writeTtl: '1h' });
  });

  it('caches nothing without a breakpoint, or when the prefix up to the last one is shorter than the providers cache', () => {
    const cache = new PromptCache();
    const unmarked = explicit(block('system', system));
    expect(cache.use('k', unmarked, 0)).toEqual({ readTokens: 0, writeTokens: 0, writeTtl: '5m' });
    expect(cache.use('k', unmarked, 0)).toEqual({ readTokens: 0, writeTokens: 0, writeTtl: '5m' });
    const short = explicit(block('system', MIN_CACHED_PROMPT_TOKENS - 1, '5m'), block('q', 100));
    expect(cache.use('k', short, 0).writeTokens).toBe(0);
    expect(cache.use('k', short, 0).readTokens).toBe(0);
  });

  it('reads the longest prefix an earlier breakpoint wrote, and nothing once an earlier block changed', () => {
    const cache = new PromptCache();
    cache.use('k', explicit(block('system', system, '5m'), block('q1', 10, '5m')), 0);
    expect(cache.use('k', explicit(block('system', system), block('other question', 10, '5m')), 0).readTokens).toBe(system);
    expect(cache.use('k', explicit(block('another system', system), block('q1', 10, '5m')), 0).readTokens).toBe(0);
  });
});

describe('automatic caching (OpenAI, Gemini)', () => {
  it('reports no writes, and reads any earlier prompt that the new one starts with', () => {
    const cache = new PromptCache();
    expect(cache.use('k', automatic(block('system', system), block('q1', 10)), 0)).toEqual({ readTokens: 0, writeTokens: 0, writeTtl: '5m' });
    expect(cache.use('k', automatic(block('system', system), block('q1', 10), block('a1', 8), block('q2', 4)), 0).readTokens).toBe(system + 10);
    // Every prefix was kept: another conversation with the same system prompt reads that much.
    expect(cache.use('k', automatic(block('system', system), block('elsewhere', 10)), 0).readTokens).toBe(system);
  });
});

describe('the cache as a whole', () => {
  it('is one per scope (a key and a model)', () => {
    const cache = new PromptCache();
    const prompt = automatic(block('system', system), block('q1', 10));
    cache.use('key-a model', prompt, 0);
    expect(cache.use('key-b model', prompt, 0).readTokens).toBe(0);
    expect(cache.use('key-a other-model', prompt, 0).readTokens).toBe(0);
    expect(cache.use('key-a model', prompt, 0).readTokens).toBe(system + 10);
  });

  it('forgets a prefix its TTL after it was last written or read: 5 minutes, or an hour', () => {
    const cache = new PromptCache();
    cache.use('k', explicit(block('five', system, '5m')), 0);
    cache.use('k', explicit(block('hour', system, '1h')), 0);
    expect(cache.use('k', explicit(block('five', system, '5m')), 5 * minute - 1).readTokens).toBe(system);
    // The read above kept it alive for another 5 minutes.
    expect(cache.use('k', explicit(block('five', system, '5m')), 10 * minute - 2).readTokens).toBe(system);
    expect(cache.use('k', explicit(block('five', system, '5m')), 20 * minute).readTokens).toBe(0);
    expect(cache.use('k', explicit(block('hour', system, '1h')), 59 * minute).readTokens).toBe(system);
  });

  it('keeps at most its bound of prefixes, dropping the least recently used', () => {
    const cache = new PromptCache(2);
    const prompt = (name: string): CacheablePrompt => automatic(block(name, system));
    cache.use('k', prompt('a'), 0);
    cache.use('k', prompt('b'), 0);
    cache.use('k', prompt('a'), 0);
    cache.use('k', prompt('c'), 0);
    expect(cache.use('k', prompt('b'), 0).readTokens).toBe(0);
    expect(cache.use('k', prompt('c'), 0).readTokens).toBe(system);
  });

  it('forgets everything on clear', () => {
    const cache = new PromptCache();
    const prompt = automatic(block('system', system));
    cache.use('k', prompt, 0);
    cache.clear();
    expect(cache.use('k', prompt, 0).readTokens).toBe(0);
  });
});
