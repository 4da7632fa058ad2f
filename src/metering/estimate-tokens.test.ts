import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../providers/spec.js';
import { outputCharactersOf, requestCharacters } from './estimate-tokens.js';

describe('the fallback token estimate', () => {
  it('counts what the model reads again: messages, tool calls and earlier turns\' thinking', () => {
    const request: ChatRequest = {
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: [{ type: 'text', text: 'hello' }] },
        {
          role: 'assistant',
          reasoningBlocks: [
            { type: 'thinking', text: 'think', signature: 'sig' },
            { type: 'redacted', data: 'opaque' },
          ],
          content: [],
          toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }],
        },
      ],
      stream: false,
      includeUsage: false,
    };
    expect(requestCharacters(request)).toBe('sys'.length + 'hello'.length + 'think'.length + 'opaque'.length + 'f'.length + '{}'.length);
  });

  it('counts redacted thinking as generated output', () => {
    expect(outputCharactersOf({ type: 'reasoning-redacted', data: 'abcd' })).toBe(4);
  });
});
