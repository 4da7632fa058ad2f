import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';

// A turn that follows a tool's result, with the tool still forced: a provider obeys the forced
// choice, so the mock must too, on every wire a target speaks and in each caller's spelling.
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
  mock-responses: { provider: mock, dialect: openai-responses }
routes:
  openai-chat: { targets: [{ connection: mock-openai, model: gpt-forced }] }
  openai-responses: { targets: [{ connection: mock-responses, model: responses-forced }] }
  anthropic: { targets: [{ connection: mock-anthropic, model: claude-forced }] }
  gemini: { targets: [{ connection: mock-gemini, model: gemini-forced }] }
  bedrock: { targets: [{ connection: mock-bedrock, model: bedrock-forced }] }
`);
});
afterAll(() => gateway?.close());
beforeEach(() => gateway.mock.reset());

const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

/** The forced choice as each upstream wire received it, for `required` and for the named tool. */
const wires = [
  { route: 'openai-chat', model: 'gpt-forced', required: { tool_choice: 'required' }, named: { tool_choice: { type: 'function', function: { name: 'get_weather' } } } },
  { route: 'openai-responses', model: 'responses-forced', required: { tool_choice: 'required' }, named: { tool_choice: { type: 'function', name: 'get_weather' } } },
  { route: 'anthropic', model: 'claude-forced', required: { tool_choice: { type: 'any' } }, named: { tool_choice: { type: 'tool', name: 'get_weather' } } },
  {
    route: 'gemini',
    model: 'gemini-forced',
    required: { toolConfig: { functionCallingConfig: { mode: 'ANY' } } },
    named: { toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } } },
  },
  { route: 'bedrock', model: 'bedrock-forced', required: { toolConfig: { toolChoice: { any: {} } } }, named: { toolConfig: { toolChoice: { tool: { name: 'get_weather' } } } } },
];

describe.each(wires)('the $route wire', ({ route, model, required, named }) => {
  it.each([
    ['required', 'required', required],
    ['a named function', { type: 'function', function: { name: 'get_weather' } }, named],
  ])('an OpenAI Chat caller forcing %s gets a tool call, whole and streamed', async (_what, toolChoice, upstreamChoice) => {
    for (const stream of [false, true]) {
      const response = await postChat(gateway.url, {
        model: route,
        stream,
        tool_choice: toolChoice,
        tools: [{ type: 'function', function: { name: 'get_weather', parameters } }],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        ],
      });
      expect(response.status).toBe(200);
      const text = await response.text();
      if (stream) {
        expect(text).toContain('"finish_reason":"tool_calls"');
        expect(text).toContain('"name":"get_weather"');
      } else {
        const { choices } = JSON.parse(text) as { choices: { finish_reason: string; message: { tool_calls?: { function: { name: string; arguments: string } }[] } }[] };
        expect(choices[0]!.finish_reason).toBe('tool_calls');
        expect(choices[0]!.message.tool_calls?.map((call) => [call.function.name, JSON.parse(call.function.arguments)])).toEqual([['get_weather', { city: 'w0' }]]);
      }
    }
    const attempts = gateway.mock.attemptsFor(model);
    expect(attempts).toHaveLength(2);
    for (const attempt of attempts) expect(attempt.body).toMatchObject(upstreamChoice);
  });

  it.each([
    ['any', { type: 'any' }],
    ['tool', { type: 'tool', name: 'get_weather' }],
  ])('an Anthropic caller forcing %s gets a tool_use block', async (_what, toolChoice) => {
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: route,
        max_tokens: 256,
        tool_choice: toolChoice,
        tools: [{ name: 'get_weather', input_schema: parameters }],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
        ],
      }),
      signal: AbortSignal.timeout(15_000),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { stop_reason: string; content: { type: string; name?: string; input?: unknown }[] };
    expect(body.stop_reason).toBe('tool_use');
    expect(body.content.filter((block) => block.type === 'tool_use')).toEqual([expect.objectContaining({ name: 'get_weather', input: { city: 'w0' } })]);
  });
});
