import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../providers/spec.js';
import { contentPredicate } from './content-predicate.js';

const unsignedReasoning: StreamEvent = { type: 'reasoning-delta', text: 'hmm' };
const redacted: StreamEvent = { type: 'reasoning-redacted', data: 'opaque' };

describe('what commits a stream, per caller dialect', () => {
  it('text, refusals and tool calls are content for every caller', () => {
    for (const shown of ['all', 'signed', 'none'] as const) {
      const isContent = contentPredicate(shown);
      expect(isContent({ type: 'text-delta', text: 'a' })).toBe(true);
      expect(isContent({ type: 'refusal-delta', text: 'no' })).toBe(true);
      expect(isContent({ type: 'tool-call-start', index: 0, id: 'c', name: 'f' })).toBe(true);
      expect(isContent({ type: 'response-start' })).toBe(false);
      expect(isContent({ type: 'usage', usage: { inputTokens: 1, outputTokens: 0 } })).toBe(false);
    }
  });

  it('OpenAI Chat shows every reasoning delta, but has no place for redacted reasoning', () => {
    const isContent = contentPredicate('all');
    expect(isContent(unsignedReasoning)).toBe(true);
    expect(isContent(redacted)).toBe(false);
  });

  it('the Anthropic dialect with thinking shows only signed blocks and redacted ones', () => {
    const isContent = contentPredicate('signed');
    expect(isContent(unsignedReasoning)).toBe(false);
    expect(isContent(redacted)).toBe(true);
    expect(isContent({ type: 'reasoning-start' })).toBe(false);
    expect(isContent(unsignedReasoning)).toBe(true);
  });

  it('the Anthropic dialect without thinking shows no reasoning at all', () => {
    const isContent = contentPredicate('none');
    isContent({ type: 'reasoning-start' });
    expect(isContent(unsignedReasoning)).toBe(false);
    expect(isContent(redacted)).toBe(false);
  });
});
