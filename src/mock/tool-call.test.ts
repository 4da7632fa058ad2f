import { describe, expect, it } from 'vitest';
import { requestedTools } from './requested-tools.js';
import { SchemaProblem } from './schema-value.js';
import { mockToolCall, ToolChoiceProblem, undeclaredToolInput } from './tool-call.js';

const weather = {
  type: 'object',
  properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] }, days: { type: 'integer', minimum: 1 } },
  required: ['city', 'unit'],
};
const time = { type: 'object', properties: { zone: { type: 'string' } } };
const question = { role: 'user', content: 'Weather in Paris?' };

describe('requestedTools reads each wire format', () => {
  it('OpenAI Chat: function tools, a named or required choice, a last `tool` message', () => {
    const body = {
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: weather } }, { type: 'custom', custom: { name: 'free' } }],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      messages: [question, { role: 'tool', tool_call_id: 'c', content: 'sunny' }],
    };
    expect(requestedTools('openai', body)).toEqual({
      tools: new Map([['get_weather', weather]]),
      choice: { kind: 'forced', among: ['get_weather'] },
      choiceField: 'tool_choice',
      endsWithToolResult: true,
    });
    expect(requestedTools('openai', { tool_choice: 'required' }).choice).toEqual({ kind: 'forced' });
    expect(requestedTools('openai', { tool_choice: 'none' }).choice).toEqual({ kind: 'none' });
  });

  it('Responses: function tools, {type: function, name}, a last function_call_output item', () => {
    const body = {
      tools: [{ type: 'web_search' }, { type: 'function', name: 'get_time', parameters: time }],
      tool_choice: { type: 'function', name: 'get_time' },
      input: [question, { type: 'function_call_output', call_id: 'c', output: 'noon' }],
    };
    expect(requestedTools('openai-responses', body)).toMatchObject({
      tools: new Map([['get_time', time]]),
      choice: { kind: 'forced', among: ['get_time'] },
      endsWithToolResult: true,
    });
    expect(requestedTools('openai-responses', { input: 'hi' }).endsWithToolResult).toBe(false);
  });

  it('Anthropic: client tools (not server tools), {type: tool | any | none}, a tool_result block last', () => {
    const body = {
      tools: [{ type: 'web_search_20250305', name: 'web_search' }, { name: 'get_weather', input_schema: weather }],
      tool_choice: { type: 'any' },
      messages: [question, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'sunny' }] }],
    };
    expect(requestedTools('anthropic', body)).toMatchObject({ tools: new Map([['get_weather', weather]]), choice: { kind: 'forced' }, endsWithToolResult: true });
    expect(requestedTools('anthropic', { tool_choice: { type: 'tool', name: 'x' } }).choice).toEqual({ kind: 'forced', among: ['x'] });
    expect(requestedTools('anthropic', { tool_choice: { type: 'none' } }).choice).toEqual({ kind: 'none' });
  });

  it('Gemini: functionDeclarations (parametersJsonSchema, else parameters), mode ANY with allowedFunctionNames, a functionResponse part last', () => {
    const body = {
      tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: weather }, { name: 'get_time', parameters: time }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_time'] } },
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }, { role: 'user', parts: [{ functionResponse: { name: 'get_time', response: {} } }] }],
    };
    expect(requestedTools('gemini', body)).toMatchObject({
      tools: new Map<string, unknown>([['get_weather', weather], ['get_time', time]]),
      choice: { kind: 'forced', among: ['get_time'] },
      choiceField: 'toolConfig.functionCallingConfig',
      endsWithToolResult: true,
    });
    const snake = { tools: [{ function_declarations: [{ name: 'f' }] }], tool_config: { function_calling_config: { mode: 'NONE' } } };
    expect(requestedTools('gemini', snake)).toMatchObject({ tools: new Map([['f', undefined]]), choice: { kind: 'none' } });
    expect(requestedTools('gemini', { toolConfig: { functionCallingConfig: { mode: 'ANY' } } }).choice).toEqual({ kind: 'forced' });
  });

  it('Bedrock: toolSpec entries (not cache points), toolChoice tool | any, a toolResult block last', () => {
    const body = {
      toolConfig: { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: weather } } }, { cachePoint: { type: 'default' } }], toolChoice: { tool: { name: 'get_weather' } } },
      messages: [question, { role: 'user', content: [{ toolResult: { toolUseId: 't', content: [{ text: 'sunny' }] } }] }],
    };
    expect(requestedTools('bedrock', body)).toMatchObject({ tools: new Map([['get_weather', weather]]), choice: { kind: 'forced', among: ['get_weather'] }, endsWithToolResult: true });
    expect(requestedTools('bedrock', { toolConfig: { toolChoice: { any: {} } } }).choice).toEqual({ kind: 'forced' });
    expect(requestedTools('bedrock', { toolConfig: { toolChoice: { auto: {} } } }).choice).toEqual({ kind: 'auto' });
  });
});

describe('mockToolCall', () => {
  const tools = [
    { type: 'function', function: { name: 'get_time', parameters: time } },
    { type: 'function', function: { name: 'get_weather', parameters: weather } },
  ];
  const chat = (extra: Record<string, unknown>): Record<string, unknown> => ({ messages: [question], tools, ...extra });

  it('calls a forced tool with arguments its schema accepts: the named one, or the first for required', () => {
    expect(mockToolCall('openai', chat({ tool_choice: { type: 'function', function: { name: 'get_weather' } } }), undefined)).toEqual({
      name: 'get_weather',
      input: { city: 'w0', unit: 'celsius', days: 1 },
    });
    expect(mockToolCall('openai', chat({ tool_choice: 'required' }), undefined)).toEqual({ name: 'get_time', input: { zone: 'w0' } });
  });

  const afterResult = (extra: Record<string, unknown>): Record<string, unknown> =>
    chat({ ...extra, messages: [question, { role: 'tool', tool_call_id: 'c', content: 'sunny' }] });

  it('answers text for auto, none, no tools, and after a tool result when no tool is forced, even when tool_call names one', () => {
    expect(mockToolCall('openai', chat({}), undefined)).toBeUndefined();
    expect(mockToolCall('openai', chat({ tool_choice: 'auto' }), undefined)).toBeUndefined();
    expect(mockToolCall('openai', chat({ tool_choice: 'none' }), 'get_weather')).toBeUndefined();
    expect(mockToolCall('openai', afterResult({}), 'get_weather')).toBeUndefined();
    expect(mockToolCall('openai', afterResult({ tool_choice: 'auto' }), undefined)).toBeUndefined();
  });

  it("calls a forced tool after a tool result too, as a provider obeys a forced choice on every turn, whatever tool_call names", () => {
    expect(mockToolCall('openai', afterResult({ tool_choice: 'required' }), 'get_weather')).toEqual({ name: 'get_time', input: { zone: 'w0' } });
    const named = afterResult({ tool_choice: { type: 'function', function: { name: 'get_weather' } } });
    expect(mockToolCall('openai', named, undefined)).toEqual({ name: 'get_weather', input: { city: 'w0', unit: 'celsius', days: 1 } });
  });

  it("calls the tool_call directive's tool, before a forced choice, with its schema's arguments, or fixed ones when it is not declared", () => {
    expect(mockToolCall('openai', chat({ tool_choice: 'required' }), 'get_weather')).toEqual({ name: 'get_weather', input: { city: 'w0', unit: 'celsius', days: 1 } });
    expect(mockToolCall('openai', { messages: [question] }, 'lookup')).toEqual({ name: 'lookup', input: undeclaredToolInput });
  });

  it('gives a tool declared without a schema no arguments', () => {
    const body = { contents: [], tools: [{ functionDeclarations: [{ name: 'ping' }] }], toolConfig: { functionCallingConfig: { mode: 'ANY' } } };
    expect(mockToolCall('gemini', body, undefined)).toEqual({ name: 'ping', input: {} });
  });

  it('refuses, naming the field, a forced tool that is not declared or a forced call with no tools; and a schema with no object value', () => {
    expect(() => mockToolCall('openai', chat({ tool_choice: { type: 'function', function: { name: 'nope' } } }), undefined)).toThrow(
      new ToolChoiceProblem('tool_choice names "nope", which the request\'s tools do not declare'),
    );
    expect(() => mockToolCall('bedrock', { toolConfig: { tools: [], toolChoice: { any: {} } } }, undefined)).toThrow(
      new ToolChoiceProblem('toolConfig.toolChoice forces a tool call, but the request declares no tools'),
    );
    const stringTool = { tools: [{ name: 'echo', input_schema: { type: 'string' } }], tool_choice: { type: 'any' } };
    expect(() => mockToolCall('anthropic', stringTool, undefined)).toThrow(new SchemaProblem('tool "echo": its schema does not describe a JSON object'));
    const dangling = { tools: [{ name: 'echo', input_schema: { $ref: '#/$defs/missing' } }], tool_choice: { type: 'any' } };
    expect(() => mockToolCall('anthropic', dangling, undefined)).toThrow(new SchemaProblem('tool "echo": $ref "#/$defs/missing" does not resolve to a schema'));
  });
});
