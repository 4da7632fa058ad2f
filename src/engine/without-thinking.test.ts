import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../providers/spec.js';
import { withoutThinkingBlocks } from './without-thinking.js';

const request = (messages: ChatRequest['messages']): ChatRequest => ({ messages, stream: false, includeUsage: false, shownReasoning: 'signed' });

describe('withoutThinkingBlocks', () => {
  it("drops every assistant turn's thinking, signed and redacted, and keeps the rest of each turn and request", () => {
    const original = request([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        reasoningBlocks: [
          { type: 'thinking', text: 'hmm', signature: 'sig' },
          { type: 'redacted', data: 'opaque' },
        ],
        content: [{ type: 'text', text: 'hello' }],
        toolCalls: [{ id: 'toolu_1', name: 'look', arguments: '{}' }],
      },
      { role: 'tool', toolCallId: 'toolu_1', content: [{ type: 'text', text: 'seen' }] },
      { role: 'assistant', reasoningBlocks: [{ type: 'thinking', text: 'again', signature: 'sig2' }], content: [{ type: 'text', text: 'done' }] },
      { role: 'user', content: [{ type: 'text', text: 'more' }] },
    ]);
    const stripped = withoutThinkingBlocks(original)!;
    expect(stripped.messages).toEqual([
      original.messages[0],
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }], toolCalls: [{ id: 'toolu_1', name: 'look', arguments: '{}' }] },
      original.messages[2],
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
      original.messages[4],
    ]);
    expect(stripped.shownReasoning).toBe('signed');
    // The caller's request is left as it came: a later target gets it whole.
    expect((original.messages[1] as { reasoningBlocks?: unknown[] }).reasoningBlocks).toHaveLength(2);
  });

  it('is undefined for a request with no thinking to drop', () => {
    expect(withoutThinkingBlocks(request([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }, { role: 'assistant', content: [{ type: 'text', text: 'hello' }], reasoningBlocks: [] }]))).toBeUndefined();
  });
});
