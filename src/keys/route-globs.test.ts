import { describe, expect, it } from 'vitest';
import { routeAllowed } from './route-globs.js';

describe('routeAllowed', () => {
  it('allows every route when the key has no globs', () => {
    expect(routeAllowed(null, 'anything')).toBe(true);
  });

  it('allows nothing with an empty list', () => {
    expect(routeAllowed([], 'support')).toBe(false);
  });

  it.each([
    ['support', 'support', true],
    ['support', 'support-drafts', false],
    ['support*', 'support', true],
    ['support*', 'support-drafts', true],
    ['*-drafts', 'support-drafts', true],
    ['*-drafts', 'support-draft', false],
    ['s*t', 'st', true],
    ['s*t', 'support', true],
    ['s*t', 'supports', false],
    ['openai-prod/*', 'openai-prod/gpt-4.1', true],
    ['openai-prod/*', 'anthropic-prod/claude', false],
    ['*', '', true],
    ['*', 'a/b/c', true],
    ['gpt-4.?', 'gpt-4.1', true],
    ['gpt-4.?', 'gpt-4.', false],
    ['gpt-4.?', 'gpt-4.10', false],
    ['gpt-4.1', 'gpt-4x1', false],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'axxbyyc', true],
    ['a*b*c', 'acb', false],
    ['a*bc*bc', 'abcbc', true],
    ['a*bc*bc', 'abc', false],
    ['*a?a*', 'xxaba', true],
    ['*a?a*', 'xxab', false],
    ['**', 'x', true],
    ['(x)+[y]^$|', '(x)+[y]^$|', true],
    ['?', '🙂', true],
  ])('%s against %s is %s', (glob, route, allowed) => {
    expect(routeAllowed([glob], route)).toBe(allowed);
  });

  it('allows a route any one glob covers', () => {
    const globs = ['support-*', 'search'];
    expect(routeAllowed(globs, 'support-drafts')).toBe(true);
    expect(routeAllowed(globs, 'search')).toBe(true);
    expect(routeAllowed(globs, 'search-v2')).toBe(false);
    // Asked again: the compiled globs are reused and answer the same.
    expect(routeAllowed(globs, 'support-drafts')).toBe(true);
  });

  it('stays fast on a long caller-chosen route against many stars', () => {
    const route = `${'a'.repeat(50_000)}c`;
    const startedMs = performance.now();
    // A backtracking regex for these globs would take O(n^5) steps to fail.
    expect(routeAllowed(['*a*a*a*a*b*c'], route)).toBe(false);
    expect(routeAllowed(['*a*a*a*a*a*c'], route)).toBe(true);
    expect(performance.now() - startedMs).toBeLessThan(500);
  });
});
