import { Agent, Runner, setTracingDisabled, tool } from '@openai/agents-core';
import { OpenAIProvider } from '@openai/agents-openai';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import WebSocket from 'ws';
import { z } from 'zod';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

let gateway: TestGateway;
// Nothing leaves the machine: the SDK would otherwise export its traces to OpenAI.
setTracingDisabled(true);
// The SDK's socket is the platform's WebSocket, which Node has from 22 on; on Node 20, `ws` stands in.
(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  agent: { targets: [{ connection: mock-openai, model: "gpt-agent?tool_call=get_weather" }] }
  agent-failover:
    retries: 0
    targets:
      - { connection: mock-openai, model: "gpt-down?status=503" }
      - { connection: mock-anthropic, model: "claude-agent?tool_call=get_weather" }
  agent-cut: { retries: 0, targets: [{ connection: mock-openai, model: "gpt-cut?cut_after=2" }] }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const getWeather = tool({
  name: 'get_weather',
  description: 'The weather in a city.',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `Sunny in ${city}.`,
});

/** A runner whose every model is the OpenAI provider's WebSocket model, pointed at the gateway. */
function socketRunner(): { runner: Runner; provider: OpenAIProvider } {
  const provider = new OpenAIProvider({ apiKey: 'sk-agents-test', baseURL: `${gateway.url}/v1`, useResponsesWebSocket: true });
  return { runner: new Runner({ modelProvider: provider, tracingDisabled: true }), provider };
}

/** The transport and status of the latest `count` records, oldest first. */
async function latest(count: number): Promise<[string | undefined, string][]> {
  await gateway.app.records.flush();
  return (await gateway.app.records.list({})).slice(0, count).reverse().map((record) => [record.transport, record.status]);
}

it('calls the tool, sends its output back on the socket, and ends with the text answer: every turn a websocket record', async () => {
  const { runner, provider } = socketRunner();
  try {
    const agent = new Agent({ name: 'weather', instructions: 'Use the tool.', model: 'agent', tools: [getWeather] });
    const result = await runner.run(agent, 'What is the weather in Lyon?', { maxTurns: 4 });
    expect(result.finalOutput).toBe(mockAnswerText(8));
    const turns = gateway.mock.attemptsFor('gpt-agent');
    expect(turns).toHaveLength(2);
    expect(JSON.stringify(turns[1]!.body)).toContain('Sunny in');
    expect(await latest(2)).toEqual([
      ['websocket', 'ok'],
      ['websocket', 'ok'],
    ]);
  } finally {
    await provider.close();
  }
});

it('does not see a primary that fails before the first content: the fallback answers every turn', async () => {
  const { runner, provider } = socketRunner();
  try {
    const agent = new Agent({ name: 'weather', instructions: 'Use the tool.', model: 'agent-failover', tools: [getWeather] });
    const result = await runner.run(agent, 'What is the weather in Oslo?', { maxTurns: 4 });
    expect(result.finalOutput).toBe(mockAnswerText(8));
    expect(gateway.mock.attemptsFor('gpt-down').length).toBeGreaterThan(0);
    expect(gateway.mock.attemptsFor('claude-agent')).toHaveLength(2);
  } finally {
    await provider.close();
  }
});

it('raises a stream cut after its first content as an error', async () => {
  const { runner, provider } = socketRunner();
  try {
    const agent = new Agent({ name: 'plain', instructions: 'Answer.', model: 'agent-cut' });
    await expect(runner.run(agent, 'Say something long.', { maxTurns: 2 })).rejects.toThrow();
    expect(await latest(1)).toEqual([['websocket', 'interrupted']]);
    // The SDK knows a response that began is not safe to send again.
    expect(gateway.mock.attemptsFor('gpt-cut')).toHaveLength(1);
  } finally {
    await provider.close();
  }
});
