import { describe, expect, it } from 'vitest';
import { OPENAI_RESPONSES } from '../../../src/dialects/openai-responses/openai-responses.js';
import { previousResponseNotFound } from '../../../src/dialects/openai-responses/expand-conversation.js';
import { parseOpenAiResponses } from '../../../src/dialects/openai-responses/parse-openai-responses.js';
import { renderOpenAiResponse } from '../../../src/dialects/openai-responses/render-openai-response.js';
import type { ResponsesEcho } from '../../../src/dialects/openai-responses/responses-echo.js';
import type { ChatResult } from '../../../src/providers/spec.js';
import { listFixtures, parseHttpFixture, readFixture, readFixtureJson } from '../../support/fixtures.js';

type Json = Record<string, unknown>;
const DIALECT = 'openai-responses-dialect';

// Fixture manifest: every file in __fixtures__ is named here, so a new fixture fails until used.
const FIXTURES = {
  requests: ['request-multi-turn.json', 'request-previous-response-id.json'],
  responses: ['response-function-call.json', 'response-reasoning.json', 'response-text.json'],
  streams: ['stream-failed.sse', 'stream-function-call.sse', 'stream-incomplete.sse', 'stream-reasoning-summary.sse', 'stream-text.sse', 'stream-error-observed-payloads.txt'],
  // Errors as OpenAI's own /v1/responses spells them: the shape the gateway's errors take.
  errors: [
    'errors/400-invalid-request-error.http',
    'errors/400-model-not-found-2026.json',
    'errors/400-previous-response-not-found.json',
    'errors/400-reasoning-item-without-following-item.json',
    'errors/400-unsupported-parameter.json',
    'errors/404-model-not-found-2025.json',
    'errors/429-insufficient-quota.json',
    'errors/429-rate-limit-exceeded.json',
    'errors/500-server-error.json',
  ],
  // The field and event mapping, with its sources: prose, no wire data.
  prose: ['mapping.md'],
};

describe('Responses fixtures', () => {
  it('are all exercised by the contract tests of this folder', () => {
    expect(listFixtures(DIALECT)).toEqual(Object.values(FIXTURES).flat().sort());
  });
});

/** The echo a request like the recorded one would give, from the recorded response's own fields. */
function echoFrom(recorded: Json): ResponsesEcho {
  return {
    instructions: recorded.instructions as string | null,
    previous_response_id: recorded.previous_response_id as string | null,
    max_output_tokens: recorded.max_output_tokens as number | null,
    parallel_tool_calls: recorded.parallel_tool_calls as boolean,
    reasoning: recorded.reasoning as ResponsesEcho['reasoning'],
    store: recorded.store as boolean,
    temperature: recorded.temperature as number,
    text: recorded.text as ResponsesEcho['text'],
    tool_choice: recorded.tool_choice,
    tools: recorded.tools as unknown[],
    top_p: recorded.top_p as number,
    user: recorded.user as string | null,
    metadata: recorded.metadata as Record<string, string>,
  };
}

function usageOf(recorded: Json): ChatResult['usage'] {
  const usage = recorded.usage as { input_tokens: number; output_tokens: number; output_tokens_details: { reasoning_tokens: number }; input_tokens_details: { cached_tokens: number } };
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheReadTokens: usage.input_tokens_details.cached_tokens,
    reasoningTokens: usage.output_tokens_details.reasoning_tokens,
  };
}

/** An output item without its id, which the gateway mints. */
function withoutId(item: Json): Json {
  const { id: _id, ...rest } = item;
  return rest;
}

function expectSameShape(rendered: Json, recorded: Json): void {
  const recordedKeys = Object.keys(recorded);
  // Every field the gateway sends is one OpenAI sends, in OpenAI's order (unless the recorder sorted them).
  expect(Object.keys(rendered).filter((key) => !recordedKeys.includes(key))).toEqual([]);
  const sortedByRecorder = recordedKeys.join() === [...recordedKeys].sort().join();
  if (!sortedByRecorder) expect(Object.keys(rendered)).toEqual(recordedKeys.filter((key) => key in rendered));
  for (const key of ['object', 'status', 'model', 'created_at', 'error', 'incomplete_details', 'usage', 'tools', 'tool_choice', 'text', 'reasoning', 'metadata']) {
    expect({ key, value: rendered[key] }).toEqual({ key, value: recorded[key] });
  }
}

describe('renderOpenAiResponse against the recorded responses', () => {
  it('response-text.json: one message item, the same usage and echoed settings', () => {
    const recorded = readFixtureJson(DIALECT, 'response-text.json');
    const item = (recorded.output as Json[])[0]!;
    const text = ((item.content as Json[])[0] as { text: string }).text;
    const rendered = renderOpenAiResponse(
      { id: 'chatcmpl-upstream', responseModel: recorded.model as string, created: recorded.created_at as number, text, toolCalls: [], finishReason: 'stop', usage: usageOf(recorded) },
      'req_abc',
      echoFrom(recorded),
    );
    expectSameShape(rendered, recorded);
    expect((rendered.output as Json[]).map(withoutId)).toEqual((recorded.output as Json[]).map(withoutId));
    // The gateway's id, never the upstream's.
    expect(rendered.id).toBe('resp_abc');
    expect((rendered.output as Json[])[0]!.id).toMatch(/^msg_abc_/);
  });

  it('response-function-call.json: a function_call item with the call id the caller will echo', () => {
    const recorded = readFixtureJson(DIALECT, 'response-function-call.json');
    const call = (recorded.output as Json[])[0] as { call_id: string; name: string; arguments: string };
    const rendered = renderOpenAiResponse(
      {
        id: 'x',
        responseModel: recorded.model as string,
        created: recorded.created_at as number,
        text: '',
        toolCalls: [{ id: call.call_id, name: call.name, arguments: call.arguments }],
        finishReason: 'tool_calls',
        usage: usageOf(recorded),
      },
      'req_fc',
      echoFrom(recorded),
    );
    expectSameShape(rendered, recorded);
    expect((rendered.output as Json[]).map(withoutId)).toEqual((recorded.output as Json[]).map(withoutId));
    expect((rendered.output as Json[])[0]!.id).toMatch(/^fc_/);
  });

  it('response-reasoning.json: reasoning as a summary item before the message, when a summary was asked for', () => {
    const recorded = readFixtureJson(DIALECT, 'response-reasoning.json');
    const [reasoningItem, messageItem] = recorded.output as Json[];
    const summary = ((reasoningItem!.summary as Json[])[0] as { text: string }).text;
    const text = ((messageItem!.content as Json[])[0] as { text: string }).text;
    const result: ChatResult = {
      id: 'x',
      responseModel: recorded.model as string,
      created: recorded.created_at as number,
      text,
      reasoning: summary,
      toolCalls: [],
      finishReason: 'stop',
      usage: usageOf(recorded),
    };
    const rendered = renderOpenAiResponse(result, 'req_rs', echoFrom(recorded));
    expectSameShape(rendered, recorded);
    // A translated answer has no encrypted reasoning to carry.
    const { encrypted_content: _encrypted, ...translatable } = withoutId(reasoningItem!);
    expect((rendered.output as Json[]).map(withoutId)).toEqual([translatable, withoutId(messageItem!)]);
    expect((rendered.usage as Json).output_tokens_details).toEqual({ reasoning_tokens: 128 });

    const unasked = renderOpenAiResponse(result, 'req_rs', { ...echoFrom(recorded), reasoning: { effort: 'high', summary: null } });
    expect((unasked.output as Json[]).map((item) => item.type)).toEqual(['message']);
  });

  it('a length or content-filter finish is incomplete, with its reason', () => {
    const echo = echoFrom(readFixtureJson(DIALECT, 'response-text.json'));
    const base: ChatResult = { id: 'x', responseModel: 'm', text: 'Hello,', toolCalls: [], finishReason: 'length' };
    expect(renderOpenAiResponse(base, 'req_1', echo)).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [{ status: 'incomplete' }],
    });
    expect(renderOpenAiResponse({ ...base, finishReason: 'content_filter' }, 'req_1', echo)).toMatchObject({ incomplete_details: { reason: 'content_filter' } });
    expect(renderOpenAiResponse({ ...base, text: '', refusal: 'No.', finishReason: 'stop' }, 'req_1', echo)).toMatchObject({
      status: 'completed',
      output: [{ type: 'message', content: [{ type: 'refusal', refusal: 'No.' }] }],
      usage: null,
    });
  });
});

describe('Responses errors against the recorded ones', () => {
  const envelope = { requestId: 'req_e' };

  it.each(FIXTURES.errors)('%s: the gateway’s error body has the same fields', (name) => {
    const text = readFixture(DIALECT, name);
    const recorded = JSON.parse(name.endsWith('.http') ? parseHttpFixture(text).body : text) as { error: Json };
    const body = OPENAI_RESPONSES.errorBody({ status: 400, code: 'c', type: 't', message: 'm', param: null, ...envelope }) as { error: Json };
    expect(Object.keys(body.error).filter((key) => key !== 'request_id').sort()).toEqual(Object.keys(recorded.error).sort());
  });

  it('400-previous-response-not-found.json: the refusal of a previous_response_id is the recorded one', () => {
    const recorded = readFixtureJson(DIALECT, 'errors/400-previous-response-not-found.json') as { error: { message: string } };
    const id = /'([^']+)'/.exec(recorded.error.message)![1]!;
    const error = previousResponseNotFound(id);
    const body = OPENAI_RESPONSES.errorBody({ status: error.status, code: error.code, type: error.type, message: error.message, param: error.param ?? null, ...envelope });
    expect(body).toEqual({ error: { ...recorded.error, request_id: 'req_e' } });
  });

  it('400-invalid-request-error.http: a temperature below 0 names the field as OpenAI does', () => {
    const recorded = JSON.parse(parseHttpFixture(readFixture(DIALECT, 'errors/400-invalid-request-error.http')).body) as { error: Json };
    let refused: unknown;
    try {
      parseOpenAiResponses({ model: 'm', input: 'hi', temperature: -1 });
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ status: 400, type: recorded.error.type, param: recorded.error.param });
  });
});

describe('items a Responses upstream passes through', () => {
  const echo = parseOpenAiResponses({ model: 'm', input: 'hi', reasoning: { summary: 'auto' } }).echo as ResponsesEcho;
  const result: ChatResult = { id: 'up', responseModel: 'm', text: 'Done.', toolCalls: [], finishReason: 'stop' };

  it('hosted tool calls come before the message, as they came; encrypted reasoning joins the summary item', () => {
    const searchCall = { id: 'ws_1', type: 'web_search_call', status: 'completed' };
    const rendered = renderOpenAiResponse(
      { ...result, reasoning: 'Thinking.', outputItems: [{ id: 'rs_up', type: 'reasoning', summary: [], encrypted_content: 'opaque' }, searchCall] },
      'req_r',
      echo,
    ) as { output: Json[] };
    expect(rendered.output.map((item) => item.type)).toEqual(['reasoning', 'web_search_call', 'message']);
    expect(rendered.output[0]).toMatchObject({ summary: [{ text: 'Thinking.' }], encrypted_content: 'opaque' });
    expect(rendered.output[1]).toEqual(searchCall);
  });
});
