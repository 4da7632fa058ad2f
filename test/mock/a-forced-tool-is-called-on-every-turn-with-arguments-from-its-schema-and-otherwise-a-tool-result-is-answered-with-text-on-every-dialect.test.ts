import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAnswerText, startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import {
  bedrockPath,
  decodeEventStream,
  geminiChunks,
  geminiPath,
  parseFrames,
  postJson,
  readBody,
  type GeminiChunk,
} from './helpers.js';

let mock: MockProvider;

beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());

interface Tool {
  name: string;
  schema: Record<string, unknown>;
}

const timeTool: Tool = { name: 'get_time', schema: { type: 'object', properties: { zone: { type: 'string' } } } };
const weatherTool: Tool = {
  name: 'get_weather',
  schema: {
    type: 'object',
    properties: {
      city: { type: 'string' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      days: { type: 'integer', minimum: 3, maximum: 7 },
    },
    required: ['city', 'unit', 'days'],
    additionalProperties: false,
  },
};
const tools = [timeTool, weatherTool];
const weatherInput = { city: 'w0', unit: 'celsius', days: 3 };

type Choice = 'required' | 'none' | { name: string };

interface Request {
  choice?: Choice;
  /** The conversation ends with the result of a call to get_weather. */
  afterToolResult?: boolean;
  stream?: boolean;
  /** Directives in the `x-mock` header. */
  directives?: string;
}


/** An answer as a caller sees it, whole or assembled from its stream. */
interface Answer {
  call?: { name: string; input: unknown };
  /** Argument fragments as streamed (a Gemini call arrives whole: one). */
  fragments?: string[];
  text: string;
  finish: string;
}

/** A wire format: where its request puts each thing, and how a caller reads its answer. */
interface Dialect {
  name: string;
  choiceField: string;
  toolFinish: string;
  textFinish: string;
  path(stream: boolean): string;
  /** Model, stream flag and the like, where the body carries them. */
  base(stream: boolean): Record<string, unknown>;
  conversationField: string;
  question: unknown;
  /** The turns of a call to get_weather and its result. */
  callAndResult: unknown[];
  /** The declared tools and the choice among them. */
  toolFields(choice: Choice | undefined): Record<string, unknown>;
  read(response: Response, stream: boolean): Promise<Answer>;
}

function send(dialect: Dialect, request: Request): Promise<Response> {
  const stream = request.stream ?? false;
  const body = {
    ...dialect.base(stream),
    [dialect.conversationField]: [dialect.question, ...(request.afterToolResult ? dialect.callAndResult : [])],
    ...dialect.toolFields(request.choice),
  };
  return postJson(`${mock.url}${dialect.path(stream)}`, body, { headers: request.directives === undefined ? {} : { 'x-mock': request.directives } });
}

const question = 'What is the weather in Paris?';

const openai: Dialect = {
  name: 'OpenAI Chat',
  choiceField: 'tool_choice',
  toolFinish: 'tool_calls',
  textFinish: 'stop',
  path: () => '/v1/chat/completions',
  base: (stream) => ({ model: 'gpt-mock', stream }),
  conversationField: 'messages',
  question: { role: 'user', content: question },
  callAndResult: [
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
  ],
  toolFields: (choice) => ({
    tools: tools.map((tool) => ({ type: 'function', function: { name: tool.name, parameters: tool.schema } })),
    ...(choice === undefined ? {} : { tool_choice: typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } } }),
  }),
  async read(response, stream) {
    type Message = { content?: string | null; tool_calls?: { function: { name?: string; arguments: string } }[] };
    if (!stream) {
      const body = (await response.json()) as { choices: { message: Message; finish_reason: string }[] };
      const { message, finish_reason } = body.choices[0]!;
      const fn = message.tool_calls?.[0]?.function;
      return { call: fn && { name: fn.name!, input: JSON.parse(fn.arguments) }, text: message.content ?? '', finish: finish_reason };
    }
    const answer: Answer = { text: '', finish: '', fragments: [] };
    let name: string | undefined;
    for (const frame of parseFrames((await readBody(response)).text)) {
      if (frame.data === '[DONE]') continue;
      const choice = (JSON.parse(frame.data) as { choices: { delta: Message; finish_reason: string | null }[] }).choices[0];
      if (!choice) continue;
      answer.text += choice.delta.content ?? '';
      const fn = choice.delta.tool_calls?.[0]?.function;
      name ??= fn?.name;
      if (fn?.arguments) answer.fragments!.push(fn.arguments);
      answer.finish = choice.finish_reason ?? answer.finish;
    }
    return withStreamedCall(answer, name);
  },
};

const responses: Dialect = {
  name: 'OpenAI Responses',
  choiceField: 'tool_choice',
  toolFinish: 'completed',
  textFinish: 'completed',
  path: () => '/v1/responses',
  base: (stream) => ({ model: 'gpt-mock', stream }),
  conversationField: 'input',
  question: { role: 'user', content: question },
  callAndResult: [
    { type: 'function_call', call_id: 'c1', name: 'get_weather', arguments: '{}' },
    { type: 'function_call_output', call_id: 'c1', output: 'sunny' },
  ],
  toolFields: (choice) => ({
    tools: tools.map((tool) => ({ type: 'function', name: tool.name, parameters: tool.schema })),
    ...(choice === undefined ? {} : { tool_choice: typeof choice === 'string' ? choice : { type: 'function', name: choice.name } }),
  }),
  async read(response, stream) {
    type Output = { type: string; name?: string; arguments?: string; content?: { text: string }[] };
    type ResponseObject = { status: string; output: Output[] };
    const answerOf = (body: ResponseObject): Answer => {
      const item = body.output[0]!;
      return item.type === 'function_call'
        ? { call: { name: item.name!, input: JSON.parse(item.arguments!) }, text: '', finish: body.status }
        : { text: item.content![0]!.text, finish: body.status };
    };
    if (!stream) return answerOf((await response.json()) as ResponseObject);
    let final: ResponseObject | undefined;
    const fragments: string[] = [];
    for (const frame of parseFrames((await readBody(response)).text)) {
      const event = JSON.parse(frame.data) as { type: string; delta?: string; response?: ResponseObject };
      if (event.type === 'response.function_call_arguments.delta') fragments.push(event.delta!);
      if (event.type === 'response.completed') final = event.response;
    }
    const answer = answerOf(final!);
    // The completed response repeats the arguments whole; the caller assembles them from the deltas.
    return answer.call ? withStreamedCall({ ...answer, fragments }, answer.call.name) : answer;
  },
};

const anthropic: Dialect = {
  name: 'Anthropic',
  choiceField: 'tool_choice',
  toolFinish: 'tool_use',
  textFinish: 'end_turn',
  path: () => '/v1/messages',
  base: (stream) => ({ model: 'claude-mock', max_tokens: 256, stream }),
  conversationField: 'messages',
  question: { role: 'user', content: question },
  callAndResult: [
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'get_weather', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'sunny' }] },
  ],
  toolFields: (choice) => ({
    tools: tools.map((tool) => ({ name: tool.name, input_schema: tool.schema })),
    ...(choice === undefined
      ? {}
      : { tool_choice: choice === 'required' ? { type: 'any' } : choice === 'none' ? { type: 'none' } : { type: 'tool', name: choice.name } }),
  }),
  async read(response, stream) {
    type Block = { type: string; text?: string; name?: string; input?: unknown };
    if (!stream) {
      const body = (await response.json()) as { content: Block[]; stop_reason: string };
      const block = body.content[0]!;
      return block.type === 'tool_use'
        ? { call: { name: block.name!, input: block.input }, text: '', finish: body.stop_reason }
        : { text: block.text!, finish: body.stop_reason };
    }
    const answer: Answer = { text: '', finish: '', fragments: [] };
    let name: string | undefined;
    for (const frame of parseFrames((await readBody(response)).text)) {
      const event = JSON.parse(frame.data) as { type: string; content_block?: Block; delta?: { text?: string; partial_json?: string; stop_reason?: string } };
      if (event.type === 'content_block_start' && event.content_block?.type === 'tool_use') name = event.content_block.name;
      if (event.delta?.text !== undefined) answer.text += event.delta.text;
      if (event.delta?.partial_json !== undefined) answer.fragments!.push(event.delta.partial_json);
      if (event.delta?.stop_reason !== undefined) answer.finish = event.delta.stop_reason;
    }
    return withStreamedCall(answer, name);
  },
};

const gemini: Dialect = {
  name: 'Gemini',
  choiceField: 'toolConfig.functionCallingConfig',
  toolFinish: 'STOP',
  textFinish: 'STOP',
  path: (stream) => geminiPath('gemini-mock', stream),
  base: () => ({}),
  conversationField: 'contents',
  question: { role: 'user', parts: [{ text: question }] },
  callAndResult: [
    { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: {} } }] },
    { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: 'sunny' } } }] },
  ],
  toolFields: (choice) => ({
    tools: [{ functionDeclarations: tools.map((tool) => ({ name: tool.name, parametersJsonSchema: tool.schema })) }],
    ...(choice === undefined
      ? {}
      : {
          toolConfig: {
            functionCallingConfig: choice === 'required' ? { mode: 'ANY' } : choice === 'none' ? { mode: 'NONE' } : { mode: 'ANY', allowedFunctionNames: [choice.name] },
          },
        }),
  }),
  async read(response, stream) {
    const chunks = stream ? geminiChunks((await readBody(response)).text).map((chunk) => JSON.parse(chunk) as GeminiChunk) : [(await response.json()) as GeminiChunk];
    const answer: Answer = { text: '', finish: '' };
    for (const chunk of chunks) {
      const candidate = chunk.candidates![0]!;
      for (const part of candidate.content.parts) {
        answer.text += part.text ?? '';
        if (part.functionCall) answer.call = { name: part.functionCall.name, input: part.functionCall.args };
      }
      answer.finish = candidate.finishReason ?? answer.finish;
    }
    return answer;
  },
};

const bedrock: Dialect = {
  name: 'Bedrock',
  choiceField: 'toolConfig.toolChoice',
  toolFinish: 'tool_use',
  textFinish: 'end_turn',
  path: (stream) => bedrockPath('bedrock-mock', stream),
  base: () => ({}),
  conversationField: 'messages',
  question: { role: 'user', content: [{ text: question }] },
  callAndResult: [
    { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'get_weather', input: {} } }] },
    { role: 'user', content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'sunny' }] } }] },
  ],
  toolFields: (choice) => ({
    toolConfig: {
      tools: tools.map((tool) => ({ toolSpec: { name: tool.name, inputSchema: { json: tool.schema } } })),
      // Converse has no `none`: a caller that wants no call sends no tools.
      ...(choice === undefined || choice === 'none' ? {} : { toolChoice: choice === 'required' ? { any: {} } : { tool: { name: choice.name } } }),
    },
  }),
  async read(response, stream) {
    type Content = { text?: string; toolUse?: { name: string; input: unknown } };
    if (!stream) {
      const body = (await response.json()) as { output: { message: { content: Content[] } }; stopReason: string };
      const block = body.output.message.content[0]!;
      return block.toolUse
        ? { call: { name: block.toolUse.name, input: block.toolUse.input }, text: '', finish: body.stopReason }
        : { text: block.text!, finish: body.stopReason };
    }
    const answer: Answer = { text: '', finish: '', fragments: [] };
    let name: string | undefined;
    for (const message of decodeEventStream((await readBody(response)).bytes)) {
      const event = JSON.parse(message.payload) as { start?: { toolUse?: { name: string } }; delta?: { text?: string; toolUse?: { input: string } }; stopReason?: string };
      name ??= event.start?.toolUse?.name;
      answer.text += event.delta?.text ?? '';
      if (event.delta?.toolUse) answer.fragments!.push(event.delta.toolUse.input);
      answer.finish = event.stopReason ?? answer.finish;
    }
    return withStreamedCall(answer, name);
  },
};

/** The call a client assembles: the named tool, its arguments the joined fragments. */
function withStreamedCall(answer: Answer, name: string | undefined): Answer {
  return name === undefined ? answer : { ...answer, call: { name, input: JSON.parse(answer.fragments!.join('')) } };
}

const dialects = [openai, responses, anthropic, gemini, bedrock];

describe.each(dialects)('$name', (dialect) => {
  const ask = async (request: Request): Promise<Answer> => {
    const response = await send(dialect, request);
    expect(response.status).toBe(200);
    return dialect.read(response, request.stream ?? false);
  };

  it('a named tool is called with arguments that fit its schema, whole and streamed', async () => {
    const whole = await ask({ choice: { name: 'get_weather' } });
    expect(whole).toMatchObject({ call: { name: 'get_weather', input: weatherInput }, text: '', finish: dialect.toolFinish });

    const streamed = await ask({ choice: { name: 'get_weather' }, stream: true });
    expect(streamed).toMatchObject({ call: { name: 'get_weather', input: weatherInput }, text: '', finish: dialect.toolFinish });
    // Gemini streams a call whole; elsewhere the fragments only parse once joined.
    if (dialect !== gemini) expect(streamed.fragments!.length).toBeGreaterThan(1);
  });

  it('required / any calls the first declared tool', async () => {
    expect((await ask({ choice: 'required' })).call).toEqual({ name: 'get_time', input: { zone: 'w0' } });
  });

  it('with tools and no forced choice, the answer is text', async () => {
    expect(await ask({})).toEqual({ text: mockAnswerText(8), finish: dialect.textFinish });
  });

  it('the turn after a tool result calls a forced tool again, whole and streamed, as a provider obeys a forced choice on every turn', async () => {
    expect(await ask({ choice: { name: 'get_weather' }, afterToolResult: true })).toMatchObject({
      call: { name: 'get_weather', input: weatherInput },
      text: '',
      finish: dialect.toolFinish,
    });
    const streamed = await ask({ choice: 'required', afterToolResult: true, stream: true, directives: 'tool_call=get_weather' });
    expect(streamed).toMatchObject({ call: { name: 'get_time', input: { zone: 'w0' } }, text: '', finish: dialect.toolFinish });
  });

  it('the turn after a tool result is text when no tool is forced, even with one named by tool_call, so an agent loop ends', async () => {
    const streamed = await ask({ afterToolResult: true, stream: true, directives: 'tool_call=get_weather' });
    expect(streamed.call).toBeUndefined();
    expect(streamed).toMatchObject({ text: mockAnswerText(8), finish: dialect.textFinish });
  });

  it('a forced tool the request does not declare is a 400 naming the field', async () => {
    const response = await send(dialect, { choice: { name: 'get_news' } });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(`${dialect.choiceField} names \\"get_news\\", which the request's tools do not declare`);
    expect(mock.attempts.at(-1)?.outcome).toBe('invalid_request');
  });
});

describe.each([openai, responses, anthropic, gemini])('$name with tool choice none', (dialect) => {
  it('answers text, even with the tool_call directive', async () => {
    const response = await send(dialect, { choice: 'none', directives: 'tool_call=get_weather' });
    expect(await dialect.read(response, false)).toEqual({ text: mockAnswerText(8), finish: dialect.textFinish });
  });
});
