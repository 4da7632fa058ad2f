import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../support/start-gateway.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  via-openai: { targets: [{ connection: mock-openai, model: gpt-json }] }
  via-anthropic: { targets: [{ connection: mock-anthropic, model: claude-json }] }
  via-gemini: { targets: [{ connection: mock-gemini, model: gemini-json }] }
  via-bedrock: { targets: [{ connection: mock-bedrock, model: bedrock-json }] }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const Recipe = z.object({
  title: z.string(),
  servings: z.number().int().min(1).max(12),
  diet: z.enum(['vegan', 'omnivore']),
  steps: z.array(z.string()),
});

function chat(route: string): ChatOpenAI {
  return new ChatOpenAI({ model: route, apiKey: 'unused', maxRetries: 0, configuration: { baseURL: `${gateway.url}/v1` } });
}

describe.each([
  ['via-openai', 'gpt-json'],
  ['via-anthropic', 'claude-json'],
  ['via-gemini', 'gemini-json'],
  ['via-bedrock', 'bedrock-json'],
])('route %s', (route, upstreamModel) => {
  it('withStructuredOutput by JSON schema (response_format) gets an object its schema accepts', async () => {
    const recipe = await chat(route).withStructuredOutput(Recipe, { method: 'jsonSchema' }).invoke('A recipe, please.');
    expect(recipe).toEqual({ title: 'w0', servings: 1, diet: 'vegan', steps: ['w1'] });
    expect(JSON.stringify(gateway.mock.attemptsFor(upstreamModel)[0]?.body)).toContain('servings');
  });

  it('withStructuredOutput by function calling (a forced tool) gets one too', async () => {
    const recipe = await chat(route).withStructuredOutput(Recipe, { method: 'functionCalling', name: 'recipe' }).invoke('A recipe, please.');
    expect(Recipe.parse(recipe)).toEqual({ title: 'w0', servings: 1, diet: 'vegan', steps: ['w1'] });
    // The provider was asked to call the tool, in its own words.
    expect(JSON.stringify(gateway.mock.attemptsFor(upstreamModel)[0]?.body)).toMatch(/"recipe"/);
  });
});
