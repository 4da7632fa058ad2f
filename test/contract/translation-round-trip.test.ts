import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../src/providers/anthropic/adapter.js';
import { openAiAdapter } from '../../src/providers/openai/adapter.js';
import type { ChatMessage, ChatRequest, ChatResult, ToolDefinition } from '../../src/providers/spec.js';
import { userText } from '../support/adapter-calls.js';
import { readFixture, readFixtureJson, replaySse, summarizeStream } from '../support/fixtures.js';

type Json = Record<string, unknown>;

const ANTHROPIC_TARGET = { baseUrl: 'https://api.anthropic.com', routedModel: 'claude-haiku-4-5' };
const OPENAI_TARGET = { baseUrl: 'https://api.openai.com/v1', routedModel: 'gpt-4o-2024-08-06' };

function body(upstream: { body: string }): Json {
  return JSON.parse(upstream.body) as Json;
}

/** What the caller appends to its history after an answer, as an OpenAI client does. */
function assistantTurn(result: ChatResult): ChatMessage {
  return {
    role: 'assistant',
    content: result.text === '' ? [] : [{ type: 'text', text: result.text }],
    toolCalls: result.toolCalls,
  };
}

function toolResult(toolCallId: string, text: string, isError?: boolean): ChatMessage {
  return { role: 'tool', toolCallId, content: [{ type: 'text', text }], isError };
}

const recordedRequest = readFixtureJson('anthropic', 'messages-request-tools.json');
const weatherTool: ToolDefinition = {
  name: 'get_weather',
  description: 'Lookup the weather for a given city in either celsius or fahrenheit',
  parameters: (recordedRequest.tools as { input_schema: Record<string, unknown> }[])[0]!.input_schema,
};

function weatherRequest(messages: ChatMessage[], stream = false): ChatRequest {
  return { messages, tools: [weatherTool], maxOutputTokens: 1024, stream, includeUsage: stream };
}

describe('canonical → Anthropic → canonical', () => {
  const question = userText('What is the weather in SF?');

  it('keeps tool ids, names, arguments, stop reasons and usage through a tool-use turn', () => {
    const firstRequest = body(anthropicAdapter.buildRequest(weatherRequest([question]), ANTHROPIC_TARGET));
    expect(firstRequest).toEqual(recordedRequest);

    const claudeAnswer = readFixtureJson('anthropic', 'messages-response-tool-use.json');
    const result = anthropicAdapter.parseResponse(claudeAnswer);
    const answeredBlock = (claudeAnswer.content as Json[])[0]!;
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({ id: answeredBlock.id, name: answeredBlock.name });
    expect(JSON.parse(result.toolCalls[0]!.arguments)).toEqual(answeredBlock.input);
    expect(result.finishReason).toBe('tool_calls');
    expect(result.providerFinishReason).toBe('tool_use');
    expect(result.usage).toMatchObject({ inputTokens: 656, outputTokens: 74 });

    // The caller runs the tool (it fails) and sends the conversation back.
    const secondRequest = weatherRequest([
      question,
      assistantTurn(result),
      toolResult(result.toolCalls[0]!.id, "RuntimeError('Unexpected error, try again')", true),
    ]);
    const recordedSecond = readFixtureJson('anthropic', 'messages-request-tool-result-turn.json');
    const recordedToolUse = ((recordedSecond.messages as Json[])[1]!.content as Json[])[0]!;
    const { caller: _caller, ...echoedToolUse } = recordedToolUse;
    const built = body(anthropicAdapter.buildRequest(secondRequest, ANTHROPIC_TARGET));
    expect(built.messages).toEqual([
      (recordedSecond.messages as Json[])[0],
      { role: 'assistant', content: [echoedToolUse] },
      (recordedSecond.messages as Json[])[2],
    ]);

    const finalAnswer = anthropicAdapter.parseResponse(readFixtureJson('anthropic', 'messages-response-text.json'));
    expect(finalAnswer.finishReason).toBe('stop');
    expect(finalAnswer.toolCalls).toEqual([]);
    expect(finalAnswer.usage).toMatchObject({ inputTokens: 760, outputTokens: 63 });
  });

  it('rebuilds the same tool_use input from a streamed tool call', async () => {
    const events = await replaySse(readFixture('anthropic', 'messages-stream-tool-use.sse'), anthropicAdapter);
    const [call] = summarizeStream(events).toolCalls;
    expect(call).toBeDefined();
    const next = weatherRequest(
      [question, { role: 'assistant', content: [], toolCalls: [{ id: call!.id, name: call!.name, arguments: call!.arguments }] }],
      true,
    );
    const assistant = (body(anthropicAdapter.buildRequest(next, ANTHROPIC_TARGET)).messages as Json[])[1];
    expect(assistant).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'tool_use',
          id: 'toolu_018acGYLtfR52q9yDbWaEdQZ',
          name: 'get_weather',
          input: { location: 'San Francisco, CA', units: 'f' },
        },
      ],
    });
  });

  it('carries OpenAI parallel tool calls into one Anthropic assistant turn and one tool-result turn', () => {
    const openAiAnswer = openAiAdapter.parseResponse(readFixtureJson('openai', 'chat-response-parallel-tool-calls.json'));
    const [weather, stock] = openAiAnswer.toolCalls;
    const request = weatherRequest([
      userText('Weather in Edinburgh and the AAPL price?'),
      assistantTurn(openAiAnswer),
      toolResult(weather!.id, '11C, rain'),
      toolResult(stock!.id, '227.52'),
    ]);
    expect((body(anthropicAdapter.buildRequest(request, ANTHROPIC_TARGET)).messages as Json[]).slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'call_fdNz3vOBKYgOIpMdWotB9MjY',
            name: 'GetWeatherArgs',
            input: { city: 'Edinburgh', country: 'GB', units: 'c' },
          },
          { type: 'tool_use', id: 'call_h1DWI1POMJLb0KwIyQHWXD4p', name: 'get_stock_price', input: { ticker: 'AAPL', exchange: 'NASDAQ' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_fdNz3vOBKYgOIpMdWotB9MjY', content: '11C, rain' },
          { type: 'tool_result', tool_use_id: 'call_h1DWI1POMJLb0KwIyQHWXD4p', content: '227.52' },
        ],
      },
    ]);
  });
});

// What a tool conversation says, read back from either wire format.
interface ToolExchange {
  system: string;
  userTexts: string[];
  calls: { id: string; name: string; input: unknown }[];
  results: { id: string; content: string }[];
}

function exchangeFromOpenAi(openAiBody: Json): ToolExchange {
  const messages = openAiBody.messages as Json[];
  return {
    system: messages.filter((message) => message.role === 'system').map((message) => message.content as string).join('\n'),
    userTexts: messages.filter((message) => message.role === 'user').map((message) => message.content as string),
    calls: messages.flatMap((message) =>
      ((message.tool_calls as { id: string; function: { name: string; arguments: string } }[] | undefined) ?? []).map((call) => ({
        id: call.id,
        name: call.function.name,
        input: JSON.parse(call.function.arguments) as unknown,
      })),
    ),
    results: messages
      .filter((message) => message.role === 'tool')
      .map((message) => ({ id: message.tool_call_id as string, content: message.content as string })),
  };
}

function exchangeFromAnthropic(anthropicBody: Json): ToolExchange {
  const blocks = (anthropicBody.messages as { role: string; content: string | Json[] }[]).flatMap((message) =>
    (typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content).map((block) => ({
      role: message.role,
      block,
    })),
  );
  return {
    system: anthropicBody.system as string,
    userTexts: blocks.filter(({ role, block }) => role === 'user' && block.type === 'text').map(({ block }) => block.text as string),
    calls: blocks
      .filter(({ block }) => block.type === 'tool_use')
      .map(({ block }) => ({ id: block.id as string, name: block.name as string, input: block.input })),
    results: blocks
      .filter(({ block }) => block.type === 'tool_result')
      .map(({ block }) => ({ id: block.tool_use_id as string, content: block.content as string })),
  };
}

describe('one conversation, two wire formats', () => {
  it('says the same thing to OpenAI and to Anthropic', () => {
    const recorded = readFixtureJson('openai', 'chat-request-tools.json');
    const tool = (recorded.tools as { function: { name: string; description: string; parameters: Record<string, unknown> } }[])[0]!;
    const callId = 'call_c91SqDXlYFuETYv8mUHzz6pp';
    const request: ChatRequest = {
      messages: [
        { role: 'system', content: 'You are a concise weather assistant.' },
        userText("What's the weather like in Edinburgh?"),
        {
          role: 'assistant',
          content: [],
          toolCalls: [{ id: callId, name: 'GetWeatherArgs', arguments: '{"city":"Edinburgh","country":"UK","units":"c"}' }],
        },
        toolResult(callId, '{"temp_c": 11, "condition": "rain"}'),
      ],
      tools: [{ name: tool.function.name, description: tool.function.description, parameters: tool.function.parameters }],
      maxOutputTokens: 1024,
      stream: false,
      includeUsage: false,
    };

    const openAiBody = body(openAiAdapter.buildRequest(request, OPENAI_TARGET));
    const anthropicBody = body(anthropicAdapter.buildRequest(request, ANTHROPIC_TARGET));
    const exchange = exchangeFromOpenAi(openAiBody);
    expect(exchange).toEqual({
      system: 'You are a concise weather assistant.',
      userTexts: ["What's the weather like in Edinburgh?"],
      calls: [{ id: callId, name: 'GetWeatherArgs', input: { city: 'Edinburgh', country: 'UK', units: 'c' } }],
      results: [{ id: callId, content: '{"temp_c": 11, "condition": "rain"}' }],
    });
    expect(exchangeFromAnthropic(anthropicBody)).toEqual(exchange);
    expect(anthropicBody.tools).toEqual([
      { name: 'GetWeatherArgs', description: 'Get the current weather for a city', input_schema: tool.function.parameters },
    ]);
  });
});
