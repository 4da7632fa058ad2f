import type OpenAI from 'openai';
import { zodFunction } from 'openai/helpers/zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
  mock-responses: { provider: mock, dialect: openai-responses }
routes:
  via-openai: { targets: [{ connection: mock-openai, model: gpt-agent }] }
  via-responses: { targets: [{ connection: mock-responses, model: responses-agent }] }
  via-anthropic: { targets: [{ connection: mock-anthropic, model: claude-agent }] }
  via-gemini: { targets: [{ connection: mock-gemini, model: gemini-agent }] }
  via-bedrock: { targets: [{ connection: mock-bedrock, model: bedrock-agent }] }
`);
  client = openAiClient(gateway.url);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const Forecast = z.object({
  city: z.string(),
  unit: z.enum(['celsius', 'fahrenheit']),
  days: z.number().int().min(1).max(7),
});
const tools = [
  zodFunction({ name: 'get_time', parameters: z.object({ zone: z.string() }) }),
  zodFunction({ name: 'get_forecast', parameters: Forecast }),
];

/** An agent's loop: call the model, run the tools it calls, send their results, until it answers with text. */
async function runLoop(route: string, firstChoice: OpenAI.Chat.ChatCompletionToolChoiceOption, streamed: boolean) {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Forecast for Paris?' }];
  const calls: unknown[] = [];
  // A loop that never ends fails here instead of hanging.
  for (let turn = 0; turn < 4; turn++) {
    const params = { model: route, messages, tools, tool_choice: turn === 0 ? firstChoice : 'auto' } as const;
    const completion = streamed ? await client.chat.completions.stream(params).finalChatCompletion() : await client.chat.completions.parse(params);
    const message = completion.choices[0]!.message;
    if (!message.tool_calls?.length) return { calls, answer: message.content, finish: completion.choices[0]!.finish_reason, turns: turn + 1 };
    messages.push(message);
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue;
      calls.push({ name: call.function.name, arguments: call.function.parsed_arguments });
      messages.push({ role: 'tool', tool_call_id: call.id, content: 'Sunny, 21 C' });
    }
  }
  throw new Error('the tool loop did not end');
}

describe.each([
  ['via-openai', 'gpt-agent'],
  ['via-responses', 'responses-agent'],
  ['via-anthropic', 'claude-agent'],
  ['via-gemini', 'gemini-agent'],
  ['via-bedrock', 'bedrock-agent'],
])('route %s', (route, upstreamModel) => {
  it('a forced tool is called with arguments its zod schema accepts; after its result the answer is text, so the loop ends', async () => {
    const loop = await runLoop(route, { type: 'function', function: { name: 'get_forecast' } }, false);
    expect(loop.calls).toEqual([{ name: 'get_forecast', arguments: { city: 'w0', unit: 'celsius', days: 1 } }]);
    expect(loop).toMatchObject({ answer: mockAnswerText(8), finish: 'stop', turns: 2 });

    // The second turn carried the tool's result up in the provider's own wire format.
    const attempts = gateway.mock.attemptsFor(upstreamModel);
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['ok', 'ok']);
    expect(JSON.stringify(attempts[1]!.body)).toContain('Sunny, 21 C');
  });

  it('streamed, with tool_choice required: the first declared tool, then text', async () => {
    const loop = await runLoop(route, 'required', true);
    expect(loop.calls).toEqual([{ name: 'get_time', arguments: { zone: 'w0' } }]);
    expect(loop).toMatchObject({ answer: mockAnswerText(8), finish: 'stop', turns: 2 });
  });
});
