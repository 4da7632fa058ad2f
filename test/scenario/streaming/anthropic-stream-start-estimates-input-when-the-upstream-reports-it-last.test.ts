import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { anthropicClient } from '../../support/sdk-clients.js';

let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  via-openai: { targets: [{ connection: mock-openai, model: usage-openai }] }
  via-bedrock: { targets: [{ connection: mock-bedrock, model: usage-bedrock }] }
  via-anthropic: { targets: [{ connection: mock-anthropic, model: usage-anthropic }] }
`);
  client = anthropicClient(gateway.url);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

// Long enough that an estimate and the mock's count (a token per four characters) are both well above zero.
const prompt = 'Summarise the attached design notes about failover, commit points and health state in three bullet points.';

async function streamUsage(model: string) {
  const stream = client.messages.stream({ model, max_tokens: 64, messages: [{ role: 'user', content: prompt }] });
  let startInputTokens: number | undefined;
  stream.on('streamEvent', (event) => {
    if (event.type === 'message_start') startInputTokens = event.message.usage.input_tokens;
  });
  const message = await stream.finalMessage();
  return { startInputTokens, finalInputTokens: message.usage.input_tokens };
}

describe.each(['via-openai', 'via-bedrock'])('an upstream that reports input tokens only at the end (%s)', (route) => {
  it('message_start carries the gateway\'s estimate, and the end the upstream\'s count', async () => {
    const { startInputTokens, finalInputTokens } = await streamUsage(route);
    const upstreamCount = Math.ceil(prompt.length / 4);
    expect(finalInputTokens).toBe(upstreamCount);
    expect(startInputTokens).toBeGreaterThan(0);
    // An estimate, not a guess: within a factor of two of what the provider counted.
    expect(startInputTokens!).toBeGreaterThan(upstreamCount / 2);
    expect(startInputTokens!).toBeLessThan(upstreamCount * 2);
  });
});

it('an Anthropic upstream\'s own count at the start is passed on unchanged', async () => {
  const { startInputTokens, finalInputTokens } = await streamUsage('via-anthropic');
  expect(startInputTokens).toBe(Math.ceil(prompt.length / 4));
  expect(finalInputTokens).toBe(startInputTokens);
});
