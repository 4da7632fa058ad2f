import type { ChatRequest } from '../../../src/providers/spec.js';

export const THINKING_SIGNATURE =
  'EqQBCkgIBhABGAIiQReconstructedSignatureForTestsOnlyNotIssuedByAnthropic0123456789abcdefABCDEF+/==';
export const REDACTED_THINKING_DATA = 'EmwKAhgBEgyReconstructedRedactedThinkingDataForTestsOnly+/0123456789==';

/**
 * The canonical form of `messages-request-cache-control-thinking.json`: a tool-using turn with
 * signed and redacted thinking, and cache markers on system, a tool, a user text and a tool result.
 */
export const CACHED_THINKING_TURN: ChatRequest = {
  messages: [
    {
      role: 'system',
      content: 'You are a concise weather assistant.\nProject notes: answer in Celsius unless the user asks otherwise.',
      parts: [
        { type: 'text', text: 'You are a concise weather assistant.' },
        {
          type: 'text',
          text: 'Project notes: answer in Celsius unless the user asks otherwise.',
          cacheControl: { type: 'ephemeral' },
        },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: 'What is the weather in Paris?', cacheControl: { type: 'ephemeral' } }] },
    {
      role: 'assistant',
      reasoningBlocks: [
        {
          type: 'thinking',
          text: 'The user wants the weather in Paris. I should call get_weather with the city.',
          signature: THINKING_SIGNATURE,
        },
        { type: 'redacted', data: REDACTED_THINKING_DATA },
      ],
      content: [{ type: 'text', text: 'Let me check the weather in Paris.' }],
      toolCalls: [{ id: 'toolu_01ThinkingToolUseReconstr', name: 'get_weather', arguments: '{"location":"Paris"}' }],
    },
    {
      role: 'tool',
      toolCallId: 'toolu_01ThinkingToolUseReconstr',
      content: [{ type: 'text', text: '18°C, sunny' }],
      cacheControl: { type: 'ephemeral' },
    },
  ],
  tools: [
    {
      name: 'get_weather',
      description: 'Get the current weather in a given location',
      parameters: {
        type: 'object',
        properties: { location: { type: 'string', description: 'The city, e.g. Paris' } },
        required: ['location'],
      },
      cacheControl: { type: 'ephemeral', ttl: '1h' },
    },
  ],
  maxOutputTokens: 16000,
  stream: true,
  includeUsage: true,
  shownReasoning: 'signed',
  passthrough: { dialect: 'anthropic', fields: { thinking: { type: 'enabled', budget_tokens: 10000 } } },
};
