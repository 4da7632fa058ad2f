import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../src/providers/anthropic/adapter.js';
import { bedrockAdapter } from '../../src/providers/bedrock/adapter.js';
import { openAiAdapter } from '../../src/providers/openai/adapter.js';
import { createCompatibleAdapter } from '../../src/providers/openai-compatible/adapter.js';
import type { ChatRequest, ProviderAdapter } from '../../src/providers/spec.js';
import { fitToolCallId, OPENAI_TOOL_CALL_IDS } from '../../src/providers/shared/tool-call-ids.js';

/** A Gemini 3 call id carries its thought signature: hundreds of characters. */
const GEMINI_SIGNED_ID = `gmx4_ab12${'Q'.repeat(300)}`;
const FOREIGN_ID = 'call.with:odd/characters';

function conversation(id: string): ChatRequest {
  return {
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      { role: 'assistant', content: [], toolCalls: [{ id, name: 'get_weather', arguments: '{"city":"Paris"}' }] },
      { role: 'tool', toolCallId: id, content: [{ type: 'text', text: '{"temp":21}' }] },
    ],
    tools: [{ name: 'get_weather', parameters: { type: 'object' } }],
    stream: false,
    includeUsage: false,
    maxOutputTokens: 100,
  };
}

/** The call id and the result's id as the provider's body carries them. */
function idsSent(adapter: ProviderAdapter, id: string): [string, string] {
  const body = JSON.parse(adapter.buildRequest(conversation(id), { baseUrl: 'https://example.test/v1', routedModel: 'm' }).body) as Record<string, unknown>;
  const text = JSON.stringify(body);
  switch (adapter) {
    case anthropicAdapter:
      return [/"tool_use","id":"([^"]+)"/.exec(text)![1]!, /"tool_use_id":"([^"]+)"/.exec(text)![1]!];
    case bedrockAdapter:
      return [/"toolUse":\{"toolUseId":"([^"]+)"/.exec(text)![1]!, /"toolResult":\{"toolUseId":"([^"]+)"/.exec(text)![1]!];
    default:
      return [/"tool_calls":\[\{"id":"([^"]+)"/.exec(text)![1]!, /"tool_call_id":"([^"]+)"/.exec(text)![1]!];
  }
}

const mistral = createCompatibleAdapter('https://api.mistral.ai/v1');

describe('tool-call ids a conversation brings from another provider', () => {
  it.each([
    ['OpenAI', openAiAdapter, /^[^]{1,40}$/],
    ['Anthropic', anthropicAdapter, /^[a-zA-Z0-9_-]+$/],
    ['Bedrock', bedrockAdapter, /^[a-zA-Z0-9_-]{1,64}$/],
    ['Mistral', mistral, /^[a-zA-Z0-9]{9}$/],
  ] as const)('are fitted to what %s accepts, and the call still matches its result', (_name, adapter, accepted) => {
    for (const id of [GEMINI_SIGNED_ID, FOREIGN_ID]) {
      const [callId, resultId] = idsSent(adapter, id);
      expect(callId).toMatch(accepted);
      expect(resultId).toBe(callId);
      // Stable: the next turn sends the same stand-in again.
      expect(idsSent(adapter, id)).toEqual([callId, resultId]);
    }
  });

  it('leave ids the provider accepts untouched', () => {
    expect(idsSent(openAiAdapter, 'call_abc123')).toEqual(['call_abc123', 'call_abc123']);
    expect(idsSent(anthropicAdapter, 'toolu_01A09q90qw90lq917835lq9')).toEqual(['toolu_01A09q90qw90lq917835lq9', 'toolu_01A09q90qw90lq917835lq9']);
    expect(idsSent(mistral, 'D681PevKs')).toEqual(['D681PevKs', 'D681PevKs']);
  });

  it('give different ids different stand-ins', () => {
    const first = fitToolCallId(`${GEMINI_SIGNED_ID}1`, OPENAI_TOOL_CALL_IDS);
    const second = fitToolCallId(`${GEMINI_SIGNED_ID}2`, OPENAI_TOOL_CALL_IDS);
    expect(first).not.toBe(second);
    expect(first).toMatch(/^call_[0-9a-f]{35}$/);
  });
});
