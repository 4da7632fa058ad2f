import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { anthropicClient } from '../../support/sdk-clients.js';

let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  sonnet-native: { targets: [{ connection: mock-anthropic, model: claude-code-native }] }
  sonnet-via-openai: { targets: [{ connection: mock-openai, model: gpt-behind-claude-code }] }
`);
  client = anthropicClient(gateway.url);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const BETAS = ['claude-code-20250219', 'interleaved-thinking-2025-05-14', 'context-management-2025-06-27'];
const SYSTEM_ENTRY = { role: 'system' as const, content: 'The user switched to plan mode: do not edit files.' };
const THINKING = { type: 'enabled' as const, budget_tokens: 4000 };
const CONTEXT_MANAGEMENT = { edits: [{ type: 'clear_thinking_20251015' as const, keep: 'all' as const }] };
const OUTPUT_CONFIG = { effort: 'high' as const };

/** What Claude Code sends on its default model: a system entry mid-conversation, thinking, betas. */
function claudeCodeRequest(model: string) {
  return {
    model,
    max_tokens: 32_000,
    betas: BETAS,
    system: [{ type: 'text' as const, text: 'You are Claude Code.', cache_control: { type: 'ephemeral' as const } }],
    messages: [
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'Fix the failing test.' }] },
      { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'Looking at it.' }] },
      SYSTEM_ENTRY,
      { role: 'user' as const, content: 'Go on.' },
    ],
    thinking: THINKING,
    context_management: CONTEXT_MANAGEMENT,
    output_config: OUTPUT_CONFIG,
    metadata: { user_id: 'user_claude_code' },
  };
}

async function send(model: string, stream: boolean): Promise<string> {
  if (stream) {
    const message = await client.beta.messages.stream(claudeCodeRequest(model)).finalMessage();
    return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  }
  const message = await client.beta.messages.create({ ...claudeCodeRequest(model), stream: false });
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

describe.each([false, true])('Claude Code request shape (stream: %s)', (stream) => {
  it('reaches an Anthropic target as sent: the system entry in place, thinking, context management, output config and the beta header', async () => {
    expect(await send('sonnet-native', stream)).toBe(mockAnswerText(8));

    const [attempt] = gateway.mock.attemptsFor('claude-code-native');
    expect(attempt!.headers['anthropic-beta']).toBe(BETAS.join(','));
    const body = attempt!.body as Record<string, unknown>;
    // Relayed: the messages exactly as Claude Code wrote them, the system entry in place.
    expect(body.messages).toEqual(claudeCodeRequest('sonnet-native').messages);
    expect(body.system).toEqual([{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }]);
    expect(body.thinking).toEqual(THINKING);
    expect(body.context_management).toEqual(CONTEXT_MANAGEMENT);
    expect(body.output_config).toEqual(OUTPUT_CONFIG);
    expect(body.metadata).toEqual({ user_id: 'user_claude_code' });
  });

  it('reaches an OpenAI target translated: the system entry a system message in place, no beta header, no Anthropic-only fields', async () => {
    expect(await send('sonnet-via-openai', stream)).toBe(mockAnswerText(8));

    const [attempt] = gateway.mock.attemptsFor('gpt-behind-claude-code');
    expect(attempt!.headers['anthropic-beta']).toBeUndefined();
    const body = attempt!.body as Record<string, unknown>;
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are Claude Code.' },
      { role: 'user', content: 'Fix the failing test.' },
      { role: 'assistant', content: 'Looking at it.' },
      SYSTEM_ENTRY,
      { role: 'user', content: 'Go on.' },
    ]);
    expect(body).not.toHaveProperty('thinking');
    expect(body).not.toHaveProperty('context_management');
    expect(body).not.toHaveProperty('output_config');
    expect(body).not.toHaveProperty('reasoning_effort');
    expect(body.user).toBe('user_claude_code');
  });
});
