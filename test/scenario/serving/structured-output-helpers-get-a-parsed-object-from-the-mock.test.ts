import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import { generateObject, streamObject } from 'ai';
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';

let gateway: TestGateway;
let client: OpenAI;
let aiSdkOpenAI: ReturnType<typeof createOpenAI>;

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
  client = openAiClient(gateway.url);
  aiSdkOpenAI = createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused' });
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const Address = z.object({ city: z.string(), zip: z.string().nullable() });
const TreeNode: z.ZodType<{ label: string; children: { label: string; children: unknown[] }[] }> = z.object({
  label: z.string(),
  get children() {
    return z.array(TreeNode);
  },
});
// Enums, integers, nullable, a date-time format, a repeated sub-schema and a recursive one ($ref into the definitions).
const Ticket = z.object({
  title: z.string(),
  priority: z.enum(['low', 'high']),
  estimate_hours: z.number().int(),
  tags: z.array(z.string()),
  home: Address,
  work: Address,
  due: z.string().datetime().nullable(),
  tree: TreeNode,
  done: z.boolean(),
});
const format = zodResponseFormat(Ticket, 'ticket');

describe('the openai SDK structured-output helper, through the gateway, against the mock', () => {
  for (const [route, upstreamModel] of [
    ['via-openai', 'gpt-json'],
    ['via-anthropic', 'claude-json'],
    ['via-gemini', 'gemini-json'],
    ['via-bedrock', 'bedrock-json'],
  ] as const) {
    it(`chat.completions.parse with a zod schema gets a parsed object (${route})`, async () => {
      const completion = await client.chat.completions.parse({
        model: route,
        messages: [{ role: 'user', content: 'File a ticket.' }],
        response_format: format,
      });
      const parsed = completion.choices[0]?.message.parsed;
      expect(parsed).toEqual(Ticket.parse(parsed));
      expect(parsed).toMatchObject({ priority: 'low', estimate_hours: 1, done: true, due: '2026-01-01T00:00:00Z', tree: { label: expect.any(String) } });

      // The provider was asked for the schema in its own wire format.
      const [attempt] = gateway.mock.attemptsFor(upstreamModel);
      expect(attempt?.outcome).toBe('ok');
      expect(JSON.stringify(attempt?.body)).toContain('estimate_hours');
    });
  }

  it('a streamed answer fits the schema too', async () => {
    const stream = client.chat.completions.stream({
      model: 'via-openai',
      messages: [{ role: 'user', content: 'File a ticket.' }],
      response_format: format,
    });
    const completion = await stream.finalChatCompletion();
    expect(Ticket.safeParse(completion.choices[0]?.message.parsed).success).toBe(true);
    expect(gateway.mock.attemptsFor('gpt-json')[0]?.stream).toBe(true);
  });

  it('json_object gets a JSON object', async () => {
    const completion = await client.chat.completions.create({
      model: 'via-gemini',
      messages: [{ role: 'user', content: 'Answer in JSON.' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual({ answer: expect.any(String) });
  });
});

const Trip = z.object({
  destination: z.string(),
  nights: z.number().int().min(2).max(14),
  season: z.enum(['summer', 'winter']),
  stops: z.array(z.object({ city: z.string(), days: z.number().int().positive() })),
  budget: z.number().nullable(),
});
const trip = { destination: 'w0', nights: 2, season: 'summer', stops: [{ city: 'w1', days: 1 }], budget: 1 };

const routes = [
  ['via-openai', 'gpt-json'],
  ['via-responses', 'responses-json'],
  ['via-anthropic', 'claude-json'],
  ['via-gemini', 'gemini-json'],
  ['via-bedrock', 'bedrock-json'],
] as const;

describe.each(routes)('the Vercel AI SDK, through the gateway on route %s', (route, upstreamModel) => {
  it('generateObject on the Responses API (the AI SDK default) gets an object its schema accepts', async () => {
    const { object, finishReason } = await generateObject({ model: aiSdkOpenAI(route), schema: Trip, prompt: 'Plan a trip.', maxRetries: 0 });
    expect(Trip.parse(object)).toEqual(trip);
    expect(finishReason).toBe('stop');
    expect(JSON.stringify(gateway.mock.attemptsFor(upstreamModel)[0]?.body)).toContain('nights');
  });

  it('generateObject on Chat Completions gets one too', async () => {
    const { object } = await generateObject({ model: aiSdkOpenAI.chat(route), schema: Trip, prompt: 'Plan a trip.', maxRetries: 0 });
    expect(Trip.parse(object)).toEqual(trip);
  });
});

it('the Vercel AI SDK streamObject assembles a schema-valid object from the streamed JSON', async () => {
  const result = streamObject({ model: aiSdkOpenAI('via-anthropic'), schema: Trip, prompt: 'Plan a trip.', maxRetries: 0 });
  const partials: unknown[] = [];
  for await (const partial of result.partialObjectStream) partials.push(partial);
  expect(Trip.parse(await result.object)).toEqual(trip);
  expect(partials.length).toBeGreaterThan(1);
  expect(gateway.mock.attemptsFor('claude-json')[0]?.stream).toBe(true);
});

describe.each(routes.filter(([route]) => route !== 'via-responses'))('LangChain ChatOpenAI, through the gateway on route %s', (route, upstreamModel) => {
  const chat = (): ChatOpenAI => new ChatOpenAI({ model: route, apiKey: 'unused', maxRetries: 0, configuration: { baseURL: `${gateway.url}/v1` } });

  it('withStructuredOutput by JSON schema (response_format) gets an object its schema accepts', async () => {
    expect(await chat().withStructuredOutput(Trip, { method: 'jsonSchema' }).invoke('Plan a trip.')).toEqual(trip);
    expect(JSON.stringify(gateway.mock.attemptsFor(upstreamModel)[0]?.body)).toContain('nights');
  });

  it('withStructuredOutput by function calling (a forced tool) gets one too', async () => {
    expect(await chat().withStructuredOutput(Trip, { method: 'functionCalling', name: 'trip' }).invoke('Plan a trip.')).toEqual(trip);
    // The provider was asked to call the tool, in its own words.
    expect(JSON.stringify(gateway.mock.attemptsFor(upstreamModel)[0]?.body)).toContain('"trip"');
  });
});
