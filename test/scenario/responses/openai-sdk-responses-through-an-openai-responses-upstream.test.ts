import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockAnswerText, startMockProvider, type MockProvider } from '../../../src/mock/mock-provider.js';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { fetchRecord } from '../scenario-helpers.js';

// An OpenAI connection whose base_url is a mock: the gateway calls its /v1/responses.
let upstream: MockProvider;
let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startMockProvider();
  gateway = await startGateway(`
admin: { token: scenario-admin-token }
connections:
  openai-direct: { provider: openai, api_key: sk-test, base_url: "${upstream.url}/v1" }
  mock-openai: { provider: mock, dialect: openai }
routes:
  gpt:
    targets:
      - { connection: openai-direct, model: gpt-upstream }
  flaky:
    retries: 0
    targets:
      - { connection: openai-direct, model: "broken?inband_error=server_error&error_after=0" }
      - { connection: mock-openai, model: chat-standby }
  overloaded:
    retries: 0
    targets:
      - { connection: openai-direct, model: "busy?inband_error=overloaded&error_after=0" }
      - { connection: mock-openai, model: chat-standby }
  tools:
    targets:
      - { connection: openai-direct, model: "gpt-tools?tool_call=get_weather" }
`);
  client = openAiClient(gateway.url);
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.reset();
  gateway.mock.reset();
});

function sentBody(model: string): Record<string, unknown> {
  const attempts = upstream.attemptsFor(model);
  expect(attempts).toHaveLength(1);
  expect(attempts[0]!.path).toBe('/v1/responses');
  return attempts[0]!.body as Record<string, unknown>;
}

describe('a Responses caller on an OpenAI target', () => {
  it('responses.create reaches /v1/responses with its hosted tools and unknown fields; the answer carries the gateway’s id', async () => {
    const { data: answer, response } = await client.responses
      .create({
        model: 'gpt',
        input: 'hi',
        tools: [{ type: 'web_search' }],
        prompt_cache_key: 'conversation-7',
      })
      .withResponse();
    expect(answer.status).toBe('completed');
    expect(answer.output_text).toBe(mockAnswerText(8));
    expect(answer.id).toMatch(/^resp_/);
    expect(answer.id).not.toBe('resp_mock_1');
    expect(answer.usage?.output_tokens).toBe(8);
    expect(response.headers.get('x-switchyard-served-by')).toBe('openai-direct/gpt-upstream');
    // The OpenAI target took the hosted tool: nothing was dropped.
    expect(response.headers.get('x-switchyard-dropped-tools')).toBeNull();

    const body = sentBody('gpt-upstream');
    expect(body.model).toBe('gpt-upstream');
    expect(body.tools).toEqual([{ type: 'web_search' }]);
    expect(body.prompt_cache_key).toBe('conversation-7');
    expect(body.input).toBe('hi');
    expect(upstream.attemptsFor('gpt-upstream')[0]!.headers.authorization).toBe('Bearer sk-test');
  });

  it('responses.stream delivers the upstream’s events renumbered under the gateway’s id', async () => {
    const stream = client.responses.stream({ model: 'gpt', input: 'hi' });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();
    expect(final.output).toMatchObject([{ type: 'message', content: [{ type: 'output_text', text: mockAnswerText(8) }] }]);
    expect(final.id).toMatch(/^resp_/);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types.filter((type) => type === 'response.output_text.delta')).toHaveLength(8);
    expect(sentBody('gpt-upstream').stream).toBe(true);
  });

  it('a function tool round trip: the call comes back, its output goes up as a function_call_output item', async () => {
    const tools: OpenAI.Responses.Tool[] = [
      { type: 'function', name: 'get_weather', strict: false, parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    ];
    const first = await client.responses.create({ model: 'tools', input: 'weather in Paris?', tools });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', call_id: 'call_mock_1' });
    expect(JSON.parse((call as OpenAI.Responses.ResponseFunctionToolCall).arguments)).toEqual({ city: 'w0' });

    upstream.reset();
    await client.responses.create({
      model: 'tools',
      tools,
      input: [
        { role: 'user', content: 'weather in Paris?' },
        { type: 'function_call', call_id: 'call_mock_1', name: 'get_weather', arguments: '{"city":"w0"}' },
        { type: 'function_call_output', call_id: 'call_mock_1', output: '{"celsius":21}' },
      ],
    });
    const input = sentBody('gpt-tools').input as Record<string, unknown>[];
    expect(input.at(-1)).toEqual({ type: 'function_call_output', call_id: 'call_mock_1', output: '{"celsius":21}' });
  });
});

describe.each([
  ['flaky', 'broken?inband_error=server_error&error_after=0', 'response.failed'],
  ['overloaded', 'busy?inband_error=overloaded&error_after=0', 'an error event'],
])('route %s: %s before content', (route, primary, what) => {
  it(`${what} fails over to a chat upstream; the caller sees one clean answer`, async () => {
    const { data: stream, response } = await client.responses.create({ model: route, input: 'hi', stream: true }).withResponse();
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);

    expect(events.filter((event) => event.type === 'response.created')).toHaveLength(1);
    expect(events.some((event) => event.type === 'error' || event.type === 'response.failed')).toBe(false);
    expect(events.at(-1)!.type).toBe('response.completed');
    const text = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('');
    expect(text).toBe(mockAnswerText(8));
    expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/chat-standby');
    expect(response.headers.get('x-switchyard-attempts')).toBe('2');

    // The failure came inside a 200 from the OpenAI target's own Responses API.
    expect(upstream.attemptsFor(primary.split('?')[0]!).map((attempt) => attempt.path)).toEqual(['/v1/responses']);
    expect(gateway.mock.attemptsFor('chat-standby')[0]!.path).toBe('/v1/chat/completions');
    const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
    expect(record.attempts.map((attempt) => attempt.kind)).toEqual(['server_error', 'ok']);
  });
});
