import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

// An agent loop that forces a tool on every step (`toolChoice: 'required'`) and ends on its own
// step limit: the AI SDK throws ToolChoiceViolationError on a step without a call, so each step
// after a tool's result must be answered with a call too, on whatever wire the route speaks.
const STEPS = 3;
let gateway: TestGateway;
let openai: ReturnType<typeof createOpenAI>;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  on-openai: { targets: [{ connection: mock-openai, model: gpt-agent }] }
  on-anthropic: { targets: [{ connection: mock-anthropic, model: claude-agent }] }
  on-gemini: { targets: [{ connection: mock-gemini, model: gemini-agent }] }
  on-bedrock: { targets: [{ connection: mock-bedrock, model: bedrock-agent }] }
`);
  openai = createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused' });
});
afterAll(() => gateway?.close());
beforeEach(() => gateway.mock.reset());

function lookupTool(calls: unknown[]) {
  return tool({
    description: 'Looks a word up',
    inputSchema: jsonSchema<{ word: string }>({ type: 'object', properties: { word: { type: 'string' } }, required: ['word'] }),
    execute: async (input) => {
      calls.push(input);
      return { meaning: `meaning ${calls.length}` };
    },
  });
}

describe.each([
  ['on-openai', 'gpt-agent'],
  ['on-anthropic', 'claude-agent'],
  ['on-gemini', 'gemini-agent'],
  ['on-bedrock', 'bedrock-agent'],
])('route %s', (route, upstreamModel) => {
  it(`generateText with toolChoice 'required' calls the tool on each of its ${STEPS} steps`, async () => {
    const calls: unknown[] = [];
    const result = await generateText({
      model: openai(route),
      prompt: 'Look up three words',
      maxRetries: 0,
      toolChoice: 'required',
      stopWhen: stepCountIs(STEPS),
      tools: { lookup: lookupTool(calls) },
    });
    expect(result.steps).toHaveLength(STEPS);
    for (const step of result.steps) expect(step.toolCalls.map((call) => call.toolName)).toEqual(['lookup']);
    expect(calls).toEqual(Array.from({ length: STEPS }, () => ({ word: 'w0' })));
    // Every step after the first sent the previous step's tool result up, and still got a call.
    expect(gateway.mock.attemptsFor(upstreamModel)).toHaveLength(STEPS);
  });

  it("streamText with a named toolChoice does the same, streamed", async () => {
    const calls: unknown[] = [];
    const result = streamText({
      model: openai(route),
      prompt: 'Look up three words',
      maxRetries: 0,
      toolChoice: { type: 'tool', toolName: 'lookup' },
      stopWhen: stepCountIs(STEPS),
      tools: { lookup: lookupTool(calls) },
    });
    await result.consumeStream({ onError: (error) => calls.push(error) });
    const steps = await result.steps;
    expect(steps.map((step) => step.toolCalls.map((call) => call.toolName))).toEqual(Array.from({ length: STEPS }, () => ['lookup']));
    expect(calls).toEqual(Array.from({ length: STEPS }, () => ({ word: 'w0' })));
  });
});
