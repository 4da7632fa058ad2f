import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, tooDeepPath } from './json-depth.js';

/** `levels` nested objects under `key`, innermost `{}`: `{a: {a: … {}}}`. */
function nested(levels: number, key = 'a'): unknown {
  let value: unknown = {};
  for (let level = 1; level < levels; level++) value = { [key]: value };
  return value;
}

describe('tooDeepPath', () => {
  it('accepts scalars and bodies up to the limit', () => {
    expect(tooDeepPath('text')).toBeUndefined();
    expect(tooDeepPath(null)).toBeUndefined();
    expect(tooDeepPath({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] })).toBeUndefined();
    expect(tooDeepPath(nested(MAX_JSON_DEPTH))).toBeUndefined();
  });

  it('names the path to the first container past the limit, in objects and arrays', () => {
    expect(tooDeepPath(nested(MAX_JSON_DEPTH + 1))).toEqual(Array(MAX_JSON_DEPTH).fill('a'));
    expect(tooDeepPath({ ok: 1, tools: [{ deep: [[[{}]]] }] }, 4)).toEqual(['tools', 0, 'deep', 0]);
  });

  it('does not overflow the stack on input far deeper than the limit', () => {
    const text = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(tooDeepPath(JSON.parse(text))).toHaveLength(MAX_JSON_DEPTH);
  });
});
