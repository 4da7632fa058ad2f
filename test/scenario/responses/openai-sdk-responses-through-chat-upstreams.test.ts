import OpenAI from 'openai';
import { zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAnswerText, startMockProvider, type MockProvider } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { fetchRecord } from '../scenario-helpers.js';

let gateway: TestGateway;
let client: OpenAI;
/** A host that speaks only Chat Completions, reached as any OpenAI-compatible provider is. */
let compatibleHost: MockProvider;

beforeAll(async () => {
  compatibleHost = await startMockProvider();
  gateway = await startGateway(
    `
admin: { token: scenario-admin-token }
${MOCK_CONNECTIONS}
  compatible: { provider: openai-compatible, base_url: "\${env:COMPATIBLE_URL}/v1", api_key: compatible-key }
routes:
  via-openai: { targets: [{ connection: mock-openai, model: gpt-mock }] }
  via-anthropic: { targets: [{ connection: mock-anthropic, model: claude-mock }] }
  via-compatible: { targets: [{ connection: compatible, model: llama-mock }] }
`,
    { env: { COMPATIBLE_URL: compatibleHost.url } },
  );
  client = openAiClient(gateway.url);
});
afterAll(async () => {
  await gateway.close();
  await compatibleHost.close();
});

const expectedText = mockAnswerText(8);

/** The system text and the last user text the upstream saw, whatever its wire format. */
function promptSeen(body: unknown): { system: string | undefined; user: string } {
  const sent = body as { system?: unknown; messages: { role: string; content: unknown }[] };
  const textOf = (content: unknown): string =>
    typeof content === 'string' ? content : (content as { text?: string }[]).map((part) => part.text ?? '').join('');
  const system = typeof sent.system === 'string' ? sent.system : Array.isArray(sent.system) ? textOf(sent.system) : undefined;
  const fromMessages = sent.messages.find((message) => message.role === 'system');
  return { system: system ?? (fromMessages ? textOf(fromMessages.content) : undefined), user: textOf(sent.messages.at(-1)!.content) };
}

const upstreamOf = (connection: string): MockProvider => (connection === 'compatible' ? compatibleHost : gateway.mock);

describe.each([
  ['via-openai', 'gpt-mock', 'mock-openai'],
  ['via-anthropic', 'claude-mock', 'mock-anthropic'],
  ['via-compatible', 'llama-mock', 'compatible'],
])('the official openai SDK, responses API, through route %s', (route, answeringModel, connection) => {
  it('responses.create gets a completed response with a gateway id, usage and the echoed settings', async () => {
    const { data, response } = await client.responses
      .create({
        model: route,
        instructions: 'Be brief.',
        input: 'Hello there',
        max_output_tokens: 50,
        temperature: 0.5,
        metadata: { team: 'a' },
        reasoning: { effort: 'low' },
      })
      .withResponse();

    expect(data.object).toBe('response');
    expect(data.id).toMatch(/^resp_/);
    expect(data.status).toBe('completed');
    expect(data.model).toBe(answeringModel);
    expect(data.output_text).toBe(expectedText);
    expect(data.output).toHaveLength(1);
    expect(data.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed', id: expect.stringMatching(/^msg_/) });
    expect(data.usage).toMatchObject({ output_tokens: 8, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } });
    expect(data.usage!.input_tokens).toBeGreaterThan(0);
    expect(data.usage!.total_tokens).toBe(data.usage!.input_tokens + 8);
    expect(data).toMatchObject({
      instructions: 'Be brief.',
      max_output_tokens: 50,
      temperature: 0.5,
      metadata: { team: 'a' },
      reasoning: { effort: 'low', summary: null },
      incomplete_details: null,
    });
    const requestId = response.headers.get('x-request-id')!;
    expect(data.id).toBe(`resp_${requestId.slice('req_'.length)}`);
    expect(response.headers.get('x-switchyard-served-by')).toBe(`${connection}/${answeringModel}`);

    const seen = upstreamOf(connection).attemptsFor(answeringModel).at(-1)!;
    expect(promptSeen(seen.body)).toEqual({ system: 'Be brief.', user: 'Hello there' });
    expect((seen.body as { temperature: number }).temperature).toBe(0.5);
    const maxTokens = seen.body as { max_tokens?: number; max_completion_tokens?: number };
    expect(maxTokens.max_completion_tokens ?? maxTokens.max_tokens).toBe(50);
    // Chat Completions' spelling of the effort, for OpenAI-dialect targets only.
    expect((seen.body as { reasoning_effort?: string }).reasoning_effort).toBe(connection === 'mock-anthropic' ? undefined : 'low');

    const record = await fetchRecord(gateway.url, requestId);
    expect(record.operation).toBe('responses');
    expect(record.attempts).toHaveLength(1);
  });

  it('responses.stream gets the event sequence, numbered from 0, and a final response with usage', async () => {
    const stream = client.responses.stream({ model: route, input: [{ role: 'user', content: [{ type: 'input_text', text: 'Hello there' }] }] });
    const events: { type: string; sequence_number: number }[] = [];
    let text = '';
    for await (const event of stream) {
      events.push(event);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    const final = await stream.finalResponse();

    expect(text).toBe(expectedText);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const types = [...new Set(events.map((event) => event.type))];
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(final.status).toBe('completed');
    expect(final.model).toBe(answeringModel);
    // The SDK adds `output_text` to `responses.create` answers only; a stream's final response has its items.
    expect(final.output).toMatchObject([{ type: 'message', content: [{ type: 'output_text', text: expectedText }] }]);
    expect(final.usage!.output_tokens).toBe(8);
    expect(final.id).toMatch(/^resp_/);
    expect(upstreamOf(connection).attemptsFor(answeringModel).at(-1)!.stream).toBe(true);
  });

  it('responses.parse with a zod text.format gets a parsed object (the upstream was asked for that schema)', async () => {
    const City = z.object({ city: z.string(), country: z.string() });
    const parsed = await client.responses.parse({ model: route, input: 'Largest city in Mexico?', text: { format: zodTextFormat(City, 'city_location') } });
    expect(City.parse(parsed.output_parsed)).toEqual(parsed.output_parsed);
    expect(JSON.stringify(upstreamOf(connection).attemptsFor(answeringModel).at(-1)!.body)).toContain('"country"');
  });
});
