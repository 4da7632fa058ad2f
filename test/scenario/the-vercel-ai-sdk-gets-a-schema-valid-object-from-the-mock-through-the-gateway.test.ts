import { createOpenAI } from '@ai-sdk/openai';
import { generateObject, streamObject } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../support/start-gateway.js';

let gateway: TestGateway;
let openai: ReturnType<typeof createOpenAI>;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
  mock-responses: { provider: mock, dialect: openai-responses }
routes:
  via-openai: { targets: [{ connection: mock-openai, model: gpt-json }] }
  via-responses: { targets: [{ connection: mock-responses, model: responses-json }] }
  via-anthropic: { targets: [{ connection: mock-anthropic, model: claude-json }] }
  via-gemini: { targets: [{ connection: mock-gemini, model: gemini-json }] }
  via-bedrock: { targets: [{ connection: mock-bedrock, model: bedrock-json }] }
`);
  openai = createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused' });
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const Trip = z.object({
  destination: z.string(),
  nights: z.number().int().min(2).max(14),
  season: z.enum(['summer', 'winter']),
  stops: z.array(z.object({ city: z.string(), days: z.number().int().positive() })),
  budget: z.number().nullable(),
});

const routes = [
  ['via-openai', 'gpt-json'],
  ['via-responses', 'responses-json'],
  ['via-anthropic', 'claude-json'],
  ['via-gemini', 'gemini-json'],
  ['via-bedrock', 'bedrock-json'],
] as const;

describe.each(routes)('route %s', (route, upstreamModel) => {
  it('generateObject on the Responses API (the AI SDK default) gets an object its schema accepts', async () => {
    const { object, finishReason } = await generateObject({ model: openai(route), schema: Trip, prompt: 'Plan a trip.', maxRetries: 0 });
    expect(Trip.parse(object)).toEqual({ destination: 'w0', nights: 2, season: 'summer', stops: [{ city: 'w1', days: 1 }], budget: 1 });
    expect(finishReason).toBe('stop');
    // The provider was asked for the schema in its own wire format.
    expect(JSON.stringify(gateway.mock.attemptsFor(upstreamModel)[0]?.body)).toContain('nights');
  });

  it('generateObject on Chat Completions gets one too', async () => {
    const { object } = await generateObject({ model: openai.chat(route), schema: Trip, prompt: 'Plan a trip.', maxRetries: 0 });
    expect(Trip.safeParse(object).success).toBe(true);
  });
});

it('streamObject assembles a schema-valid object from the streamed JSON', async () => {
  const result = streamObject({ model: openai('via-anthropic'), schema: Trip, prompt: 'Plan a trip.', maxRetries: 0 });
  const partials: unknown[] = [];
  for await (const partial of result.partialObjectStream) partials.push(partial);
  expect(Trip.safeParse(await result.object).success).toBe(true);
  expect(partials.length).toBeGreaterThan(1);
  expect(gateway.mock.attemptsFor('claude-json')[0]?.stream).toBe(true);
});
