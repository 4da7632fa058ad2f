import { describe, expect, it } from 'vitest';
import { answerThinking, thinkingRefusal } from './thinking-signatures.js';

const vertexClaude = { dialect: 'anthropic' as const, endpoint: 'chat' as const, home: 'vertex' as const };
const anthropic = { dialect: 'anthropic' as const, endpoint: 'chat' as const };
const turn = (signature: string) => ({
  messages: [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 'Hmm.', signature }, { type: 'text', text: 'Hello.' }] },
    { role: 'user', content: 'again' },
  ],
});

describe('the home of a route that speaks another provider’s dialect', () => {
  it('signs as vertex and refuses what the anthropic home signed, though both speak Anthropic Messages', () => {
    expect(answerThinking(vertexClaude, { thinking: { type: 'enabled', budget_tokens: 1024 } }, 'claude-sonnet-4-5@20250929', 3)?.signature).toBe('mock-signed-by-vertex.3');
    expect(thinkingRefusal(vertexClaude, turn('mock-signed-by-anthropic.1'), 'claude-sonnet-4-5@20250929')).toBe('messages.1.content.0: Invalid `signature` in `thinking` block');
    expect(thinkingRefusal(vertexClaude, turn('mock-signed-by-vertex.1'), 'claude-sonnet-4-5@20250929')).toBeUndefined();
    expect(thinkingRefusal(anthropic, turn('mock-signed-by-vertex.1'), 'claude-sonnet-4-5')).toBeDefined();
  });
});
