import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../support/start-gateway.js';
import { openAiClient } from '../support/sdk-clients.js';

let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  via-openai: { targets: [{ connection: mock-openai, model: gpt-json }] }
  via-anthropic: { targets: [{ connection: mock-anthropic, model: claude-json }] }
  via-gemini: { targets: [{ connection: mock-gemini, model: gemini-json }] }
  via-bedrock: { targets: [{ connection: mock-bedrock, model: bedrock-json }] }
`);
  client = openAiClient(gateway.url);
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
