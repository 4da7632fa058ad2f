import { describe, expect, it } from 'vitest';
import { expandConversation } from '../../../src/dialects/openai-responses/expand-conversation.js';
import { parseOpenAiResponses } from '../../../src/dialects/openai-responses/parse-openai-responses.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { readFixtureJson } from '../../support/fixtures.js';

const DIALECT = 'openai-responses-dialect';

function refusalOf(body: unknown): GatewayError {
  try {
    parseOpenAiResponses(body);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('the body was accepted');
}

describe('parseOpenAiResponses against the recorded requests', () => {
  it('request-multi-turn.json (without its previous_response_id): every field lands in the canonical request', () => {
    const { previous_response_id: _id, ...body } = readFixtureJson(DIALECT, 'request-multi-turn.json');
    const { requestedModel, request, droppedTools, echo } = parseOpenAiResponses(body);
    expect(requestedModel).toBe('gpt-5');
    expect(droppedTools).toBeUndefined();
    expect(request.messages).toEqual([
      { role: 'system', content: 'Briefly narrate what you are about to do before calling each tool.' },
      { role: 'user', content: [{ type: 'text', text: 'What is the largest city in the user country?' }] },
      { role: 'assistant', content: [], toolCalls: [{ id: 'call_tTAThu8l2S9hNky2krdwijGP', name: 'get_user_country', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'call_tTAThu8l2S9hNky2krdwijGP', content: [{ type: 'text', text: 'Mexico' }] },
    ]);
    expect(request.tools).toEqual([
      { name: 'get_user_country', parameters: { additionalProperties: false, properties: {}, type: 'object' }, strict: false },
    ]);
    expect(request.toolChoice).toBe('auto');
    expect(request.responseFormat).toMatchObject({ type: 'json_schema', name: 'CityLocation', strict: true, schema: { required: ['city', 'country'] } });
    expect(request).toMatchObject({ stream: true, includeUsage: true, shownReasoning: 'all' });
    // The effort goes to OpenAI-dialect targets as Chat Completions spells it.
    expect(request.passthrough).toEqual({ dialect: 'openai', fields: { reasoning_effort: 'high' } });
    expect(echo).toMatchObject({ store: true, reasoning: { effort: 'high', summary: 'detailed' }, instructions: body.instructions });
  });

  it('request-previous-response-id.json, expanded with the turn it names: the question, the call and its output reach the canonical request in order', () => {
    const body = readFixtureJson(DIALECT, 'request-previous-response-id.json');
    const question = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] };
    const call = { id: 'fc_1', type: 'function_call', status: 'completed', call_id: 'call_N2BikjqNxghwNIwHl2XKfb0F', name: 'get_weather', arguments: '{"city":"Paris"}' };
    const reasoning = { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'opaque' };
    const { request, echo } = parseOpenAiResponses(expandConversation(body, { input: [question], output: [reasoning, call], provider: 'openai' }));
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      { role: 'assistant', content: [], toolCalls: [{ id: 'call_N2BikjqNxghwNIwHl2XKfb0F', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
      { role: 'tool', toolCallId: 'call_N2BikjqNxghwNIwHl2XKfb0F', content: [{ type: 'text', text: 'Sunny, 72F' }] },
    ]);
    // The encrypted reasoning is for a Responses upstream of its provider only, never translated.
    expect(JSON.stringify(request.messages)).not.toContain('opaque');
    expect(echo).toMatchObject({ previous_response_id: body.previous_response_id });
  });

  it('request-previous-response-id.json (without the id): a null description is no description', () => {
    const { previous_response_id: _id, ...body } = readFixtureJson(DIALECT, 'request-previous-response-id.json');
    const { request } = parseOpenAiResponses(body);
    expect(request.tools![0]).toEqual({ name: 'get_weather', parameters: expect.any(Object), strict: true });
    expect(request.messages).toEqual([{ role: 'tool', toolCallId: 'call_N2BikjqNxghwNIwHl2XKfb0F', content: [{ type: 'text', text: 'Sunny, 72F' }] }]);
    expect(request.stream).toBe(false);
  });
});

describe('parseOpenAiResponses', () => {
  it('takes a string input as one user turn, with the sampling fields', () => {
    const { request, echo } = parseOpenAiResponses({ model: 'm', input: 'hi', temperature: 0.2, top_p: 0.9, max_output_tokens: 64, parallel_tool_calls: false, user: 'u1' });
    expect(request).toMatchObject({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      temperature: 0.2,
      topP: 0.9,
      maxOutputTokens: 64,
      parallelToolCalls: false,
      user: 'u1',
      stream: false,
      includeUsage: false,
      shownReasoning: 'none',
    });
    expect(echo).toMatchObject({ instructions: null, temperature: 0.2, top_p: 0.9, max_output_tokens: 64, metadata: {}, tool_choice: 'auto', text: { format: { type: 'text' } } });
  });

  it('keeps an assistant turn’s text and its calls in one message, images and roles as sent, reasoning items left out', () => {
    const { request } = parseOpenAiResponses({
      model: 'm',
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Rules.' }] },
        { role: 'user', content: [{ type: 'input_text', text: 'Look:' }, { type: 'input_image', image_url: 'https://x.example/a.png', detail: 'low' }] },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'thinking' }], encrypted_content: 'opaque' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Let me check.', annotations: [] }] },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'a', arguments: '{}', status: 'completed' },
        { type: 'function_call', call_id: 'call_2', name: 'b', arguments: '{"x":1}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'A' },
        { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'B' }] },
        { type: 'item_reference', id: 'msg_9' },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'developer', content: 'Rules.' },
      { role: 'user', content: [{ type: 'text', text: 'Look:' }, { type: 'image', url: 'https://x.example/a.png', detail: 'low' }] },
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'Let me check.' }],
        toolCalls: [
          { id: 'call_1', name: 'a', arguments: '{}' },
          { id: 'call_2', name: 'b', arguments: '{"x":1}' },
        ],
      },
      { role: 'tool', toolCallId: 'call_1', content: [{ type: 'text', text: 'A' }] },
      { role: 'tool', toolCallId: 'call_2', content: [{ type: 'text', text: 'B' }] },
    ]);
    // Only a target on its own Responses API is sent the body as it came, encrypted reasoning included.
    const { responsesBody, ...translated } = request;
    expect(JSON.stringify(translated)).not.toContain('opaque');
    expect(JSON.stringify(responsesBody)).toContain('opaque');
  });

  it('flattens namespace groups, drops the tool types a translated target cannot run and names them once each', () => {
    const { request, droppedTools } = parseOpenAiResponses({
      model: 'm',
      input: [
        { type: 'function_call', call_id: 'c1', namespace: 'crm', name: 'lookup', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'found' },
      ],
      tools: [
        { type: 'web_search' },
        { type: 'web_search' },
        { type: 'file_search', vector_store_ids: ['vs_1'] },
        { type: 'code_interpreter', container: { type: 'auto' } },
        { type: 'computer_use', display_width: 1, display_height: 1, environment: 'linux' },
        { type: 'image_generation' },
        { type: 'mcp', server_label: 's' },
        { type: 'namespace', name: 'crm', description: 'CRM.', tools: [{ type: 'function', name: 'lookup', description: 'Find.' }, { type: 'custom', name: 'note' }] },
      ],
      tool_choice: { type: 'function', namespace: 'crm', name: 'lookup' },
    });
    expect(droppedTools).toEqual(['web_search', 'file_search', 'code_interpreter', 'computer_use', 'image_generation', 'mcp', 'crm.custom']);
    expect(request.tools).toEqual([{ name: 'crm__lookup', description: 'CRM.\n\nFind.' }]);
    expect(request.toolChoice).toEqual({ name: 'crm__lookup' });
    expect(request.messages[0]).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'c1', name: 'crm__lookup' }] });
  });

  it('a tool_choice forcing a hosted tool is left to the model', () => {
    const { request } = parseOpenAiResponses({ model: 'm', input: 'hi', tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } });
    expect(request.toolChoice).toBeUndefined();
    expect(request.tools).toBeUndefined();
  });

  it.each([
    [{ type: 'text' }, { type: 'text' }],
    [{ type: 'json_object' }, { type: 'json_object' }],
    [
      { type: 'json_schema', name: 'S', schema: { type: 'object' }, description: 'd', strict: true },
      { type: 'json_schema', name: 'S', schema: { type: 'object' }, description: 'd', strict: true },
    ],
  ])('text.format %j → %j', (format, expected) => {
    expect(parseOpenAiResponses({ model: 'm', input: 'hi', text: { format, verbosity: 'low' } }).request.responseFormat).toEqual(expected);
  });

  it.each([
    [{ model: 'm', input: 'hi', temperature: -1 }, 'temperature'],
    [{ model: 'm', input: 'hi', max_output_tokens: 0 }, 'max_output_tokens'],
    [{ model: 'm', input: 'hi', text: { format: { type: 'json_schema', schema: {} } } }, 'text.format.name'],
    [{ model: 'm', input: 'hi', reasoning: { effort: 'extreme' } }, 'reasoning.effort'],
    [{ model: 'm', input: 'hi', tools: [{ type: 'function' }] }, 'tools[0]'],
    [{ model: 'm', input: [{ type: 'message', role: 'robot', content: 'x' }] }, 'input[0]'],
    [{ model: 'm', input: [{ type: 'function_call', call_id: 'c', name: 'f' }] }, 'input[0]'],
    [{ model: 'm', input: [] }, 'input'],
    [{ model: 'm' }, 'input'],
    [{ input: 'hi' }, 'model'],
    [{ model: 'm', input: [{ role: 'system', content: 'only rules' }] }, 'input'],
    [{ model: 'm', input: 'hi', metadata: { key: 1 } }, 'metadata.key'],
  ])('%j is a 400 naming %s', (body, param) => {
    const error = refusalOf(body);
    expect(error.status).toBe(400);
    expect(error.param?.startsWith(param)).toBe(true);
  });

  it('refuses a body that is not an object, or nests too deep, with a 400', () => {
    expect(refusalOf([1]).status).toBe(400);
    let deep: unknown = 'x';
    for (let level = 0; level < 70; level++) deep = { deep };
    expect(refusalOf({ model: 'm', input: 'hi', metadata: deep }).status).toBe(400);
  });
});
