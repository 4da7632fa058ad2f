import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { readFixture } from '../../support/fixtures.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { anthropicClient } from '../../support/sdk-clients.js';

let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  claude-native: { targets: [{ connection: mock-anthropic, model: claude-native }] }
  claude-on-bedrock: { targets: [{ connection: mock-bedrock, model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0" }] }
  claude-via-openai: { targets: [{ connection: mock-openai, model: gpt-behind-claude }] }
`);
  client = anthropicClient(gateway.url);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

/**
 * What Claude Code sends on the turn after a tool call: cache markers on a system block, a tool,
 * the first user text and the tool result, and the previous answer's signed and redacted thinking.
 */
const { stream: _stream, ...turn } = JSON.parse(readFixture('anthropic', 'messages-request-cache-control-thinking.json')) as MessageCreateParamsNonStreaming;
const [thinking, redacted] = turn.messages[1]!.content as [Anthropic.ThinkingBlockParam, Anthropic.RedactedThinkingBlockParam];

function sendTurn(model: string): Promise<Anthropic.Message> {
  return client.messages.create({ ...turn, model });
}

it('an Anthropic target receives the markers and the thinking exactly as the client sent them', async () => {
  const message = await sendTurn('claude-native');
  // The turn asks for thinking: the answer's own comes first, signed by the home that answered (docs/mock.md).
  expect(message.content).toEqual([
    { type: 'thinking', thinking: 'Thinking it over.', signature: 'mock-signed-by-anthropic.1' },
    expect.objectContaining({ type: 'text', text: mockAnswerText(8) }),
  ]);
  const attempts = gateway.mock.attemptsFor('claude-native');
  expect(attempts).toHaveLength(1);
  expect(attempts[0]!.body).toEqual({ ...turn, model: 'claude-native' });
});

it('a Claude target on Bedrock receives cache points after the marked blocks and the thinking as signed reasoning', async () => {
  await sendTurn('claude-on-bedrock');
  const [attempt] = gateway.mock.attemptsFor('us.anthropic.claude-sonnet-4-5-20250929-v1:0');
  const body = attempt!.body as {
    system: unknown[];
    messages: { role: string; content: Record<string, unknown>[] }[];
    toolConfig: { tools: unknown[] };
  };
  expect(body.system.at(-1)).toEqual({ cachePoint: { type: 'default' } });
  expect(body.toolConfig.tools.at(-1)).toEqual({ cachePoint: { type: 'default', ttl: '1h' } });
  expect(body.messages.map((message) => message.content.at(-1))).toEqual([
    { cachePoint: { type: 'default' } },
    expect.objectContaining({ toolUse: expect.anything() }),
    { cachePoint: { type: 'default' } },
  ]);
  expect(body.messages[1]!.content.slice(0, 2)).toEqual([
    { reasoningContent: { reasoningText: { text: thinking.thinking, signature: thinking.signature } } },
    { reasoningContent: { redactedContent: redacted.data } },
  ]);
});

it('an OpenAI-dialect target is served the same turn without markers or thinking', async () => {
  const message = await sendTurn('claude-via-openai');
  expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: mockAnswerText(8) })]);
  const [attempt] = gateway.mock.attemptsFor('gpt-behind-claude');
  expect(JSON.stringify(attempt!.body)).not.toMatch(/cache_control|thinking|signature|redacted/);
});
