import { describe, expect, it } from 'vitest';
import { contentPredicate } from '../../../src/engine/content-predicate.js';
import { createOpenAiResponsesAdapter } from '../../../src/providers/openai-responses/adapter.js';
import { adapterFor } from '../../../src/providers/registry.js';
import type { ChatRequest, StreamEvent } from '../../../src/providers/spec.js';
import { parseHttpFixture, readFixture, readFixtureJson, replaySse } from '../../support/fixtures.js';
import { failureOf, minimalRequest, userText } from '../../support/adapter-calls.js';

// The recordings live beside the Responses dialect's tests; this adapter reads the same wire.
const FIXTURES = 'openai-responses-dialect';
const TARGET = { baseUrl: 'https://api.openai.com/v1', routedModel: 'gpt-5-nano' };
const NOW_MS = Date.parse('2026-03-01T12:00:00Z');
const adapter = createOpenAiResponsesAdapter({ origin: 'openai', path: '/responses', promptCacheKey: true });

function bodyOf(request: ChatRequest, target = TARGET): Record<string, unknown> {
  return JSON.parse(adapter.buildRequest(request, target).body) as Record<string, unknown>;
}

function joined(events: readonly StreamEvent[], type: 'text-delta' | 'reasoning-delta'): string {
  return events.flatMap((event) => (event.type === type ? [event.text] : [])).join('');
}

/** The events the engine reads before its commit point: none of them is content. */
function beforeCommit(events: readonly StreamEvent[], shown: ChatRequest['shownReasoning'] = 'none'): StreamEvent[] {
  const isContent = contentPredicate(shown);
  const index = events.findIndex(isContent);
  return index === -1 ? [...events] : events.slice(0, index);
}

describe('OpenAI Responses adapter: requests', () => {
  it('sends a Responses caller’s body as it came, with the target’s model, to {base_url}/responses', () => {
    const sent = { model: 'route', input: 'hi', tools: [{ type: 'web_search' }], prompt_cache_key: 'k', include: ['reasoning.encrypted_content'] };
    // The parser reads `prompt_cache_key` into the canonical request, which the target is sent.
    const upstream = adapter.buildRequest({ ...minimalRequest({ stream: true, promptCacheKey: 'k' }), responsesBody: sent }, TARGET);
    expect(upstream.url).toBe('https://api.openai.com/v1/responses');
    expect(JSON.parse(upstream.body)).toEqual({ ...sent, model: 'gpt-5-nano', stream: true });
    expect(upstream.headers).toEqual({ 'content-type': 'application/json' });
  });

  it('passes encrypted reasoning only to the provider that made it, without the gateway’s origin field', () => {
    const input = [
      { role: 'user', content: 'first' },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'from-openai', origin: 'openai' },
      { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'from-azure', origin: 'azure-openai' },
      { type: 'reasoning', id: 'rs_3', summary: [], encrypted_content: 'from-the-caller' },
      { role: 'user', content: 'next' },
    ];
    const responsesBody = { model: 'route', input, previous_response_id: 'resp_gateway' };
    const sent = bodyOf({ ...minimalRequest(), responsesBody });
    expect(sent.input).toEqual([input[0], { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'from-openai' }, input[3], input[4]]);
    expect(sent).not.toHaveProperty('previous_response_id');
    const azure = adapterFor({ provider: 'azure-openai', base_url: 'https://r.openai.azure.com' }, 'gpt-4.1').responses!;
    const toAzure = JSON.parse(azure.buildRequest({ ...minimalRequest(), responsesBody }, { baseUrl: 'https://r.openai.azure.com', routedModel: 'dep' }).body);
    expect(toAzure.input.map((item: { encrypted_content?: string }) => item.encrypted_content).filter(Boolean)).toEqual(['from-azure', 'from-the-caller']);
  });

  it('Azure OpenAI is called on its v1 Responses path with the deployment as the model', () => {
    const azure = adapterFor({ provider: 'azure-openai', base_url: 'https://r.openai.azure.com' }, 'gpt-4.1').responses!;
    const upstream = azure.buildRequest({ ...minimalRequest(), responsesBody: { model: 'route', input: 'hi' } }, { baseUrl: 'https://r.openai.azure.com/', routedModel: 'my-deployment' });
    expect(upstream.url).toBe('https://r.openai.azure.com/openai/v1/responses');
    expect(JSON.parse(upstream.body).model).toBe('my-deployment');
  });

  it('translates a canonical request (any other caller) into input items', () => {
    const request: ChatRequest = {
      ...minimalRequest({ maxOutputTokens: 50, temperature: 0.2, toolChoice: { name: 'f' }, responseFormat: { type: 'json_object' } }),
      messages: [
        { role: 'system', content: 'Be brief.' },
        userText('hi'),
        { role: 'assistant', content: [{ type: 'text', text: 'calling' }], toolCalls: [{ id: 'call_1', name: 'f', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'call_1', content: [{ type: 'text', text: 'done' }] },
      ],
      tools: [{ name: 'f', parameters: { type: 'object' } }],
    };
    expect(bodyOf(request)).toEqual({
      model: 'gpt-5-nano',
      stream: false,
      store: false,
      input: [
        { type: 'message', role: 'system', content: 'Be brief.' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'calling', annotations: [] }] },
        { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'done' },
      ],
      tools: [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: false }],
      tool_choice: { type: 'function', name: 'f' },
      max_output_tokens: 50,
      temperature: 0.2,
      text: { format: { type: 'json_object' } },
    });
  });
});

describe('OpenAI Responses adapter: whole answers', () => {
  it('reads text, usage and the answering model', () => {
    const result = adapter.parseResponse(readFixtureJson(FIXTURES, 'response-text.json'));
    expect(result.text.length).toBeGreaterThan(0);
    expect(result.finishReason).toBe('stop');
    expect(result.usage).toMatchObject({ inputTokens: 14, outputTokens: 50, cacheReadTokens: 0, reasoningTokens: 0 });
    expect(result.outputItems).toBeUndefined();
  });

  it('reads a function call by its call_id, finishing for tool calls', () => {
    const fixture = readFixtureJson(FIXTURES, 'response-function-call.json');
    const item = (fixture.output as Record<string, string>[])[0]!;
    const result = adapter.parseResponse(fixture);
    expect(result.toolCalls).toEqual([{ id: item.call_id, name: item.name, arguments: item.arguments }]);
    expect(result.finishReason).toBe('tool_calls');
  });

  it('keeps an encrypted reasoning item whole for a Responses caller, its summary as reasoning', () => {
    const fixture = readFixtureJson(FIXTURES, 'response-reasoning.json');
    const reasoningItem = (fixture.output as Record<string, unknown>[])[0]!;
    const result = adapter.parseResponse(fixture);
    expect(result.outputItems).toEqual([reasoningItem]);
    expect(result.usage?.reasoningTokens).toBe(128);
    expect(result.text.length).toBeGreaterThan(0);
  });

  it('a failed response is an attempt failure classified by its code', () => {
    const failed = { object: 'response', status: 'failed', output: [], error: { code: 'rate_limit_exceeded', message: 'Rate limit reached' } };
    expect(failureOf(() => adapter.parseResponse(failed))).toMatchObject({ kind: 'rate_limit', code: 'rate_limit_exceeded' });
  });
});

describe('OpenAI Responses adapter: streams and the commit point', () => {
  it('a text stream: nothing before the first delta is content; text, usage and finish follow', async () => {
    const events = await replaySse(readFixture(FIXTURES, 'stream-text.sse'), adapter);
    expect(beforeCommit(events).map((event) => event.type)).toEqual(['response-start']);
    expect(joined(events, 'text-delta').length).toBeGreaterThan(0);
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop', providerReason: 'completed' });
    expect(events.some((event) => event.type === 'usage')).toBe(true);
  });

  it('a function call: start (call_id and name), argument deltas, end, finish for tool calls', async () => {
    const events = await replaySse(readFixture(FIXTURES, 'stream-function-call.sse'), adapter);
    const start = events.find((event) => event.type === 'tool-call-start');
    expect(start).toMatchObject({ index: 0, id: expect.stringMatching(/^call_/) });
    const args = events.flatMap((event) => (event.type === 'tool-call-delta' ? [event.argumentsDelta] : [])).join('');
    expect(() => JSON.parse(args)).not.toThrow();
    expect(events.filter((event) => event.type === 'tool-call-end')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls' });
  });

  it('reasoning: summary deltas commit only where shown, and the encrypted item comes whole from output_item.done', async () => {
    const text = readFixture(FIXTURES, 'stream-reasoning-summary.sse');
    const events = await replaySse(text, adapter);
    expect(joined(events, 'reasoning-delta').startsWith('**Providing street crossing')).toBe(true);
    const passed = events.filter((event) => event.type === 'output-item');
    expect(passed).toHaveLength(1);
    expect((passed[0] as { item: Record<string, unknown> }).item).toMatchObject({ type: 'reasoning', encrypted_content: expect.any(String) });
    // A caller that did not ask for the summary commits at the text, not at the reasoning.
    expect(beforeCommit(events, 'none').some((event) => event.type === 'text-delta')).toBe(false);
    expect(beforeCommit(events, 'none').some((event) => event.type === 'reasoning-delta')).toBe(true);
    expect(beforeCommit(events, 'all').map((event) => event.type)).toEqual(['response-start']);
  });

  it('an incomplete response finishes for length', async () => {
    const events = await replaySse(readFixture(FIXTURES, 'stream-incomplete.sse'), adapter);
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'length', providerReason: 'max_output_tokens' });
  });

  it('response.failed after an error event, before content: one provider error, quota exhausted, nothing that commits', async () => {
    const events = await replaySse(readFixture(FIXTURES, 'stream-failed.sse'), adapter);
    expect(events.map((event) => event.type)).toEqual(['response-start', 'provider-error']);
    expect(beforeCommit(events)).toEqual(events);
    expect(events[1]).toMatchObject({ error: { kind: 'quota_exhausted', code: 'insufficient_quota' } });
  });

  it.each([
    [/"insufficient_quota"/, 'quota_exhausted'],
    [/"server_is_overloaded"/, 'server_error'],
    [/"code":"server_error"/, 'server_error'],
    [/"rate_limit_exceeded"/, 'rate_limit'],
    [/"context_length_exceeded"/, 'context_length'],
  ])('an observed in-stream failure (%s) is classified as the same error over HTTP: %s', async (pattern, kind) => {
    const line = readFixture(FIXTURES, 'stream-error-observed-payloads.txt')
      .split('\n')
      .find((candidate) => candidate.startsWith('{') && pattern.test(candidate))!;
    const events = await replaySse(`data: ${line}\n\n`, adapter);
    expect(events.at(-1)).toMatchObject({ type: 'provider-error', error: { kind } });
  });

  it('an in-stream rate limit takes its delay from the message, the only place it is given', async () => {
    const line = readFixture(FIXTURES, 'stream-error-observed-payloads.txt')
      .split('\n')
      .find((candidate) => candidate.startsWith('{') && candidate.includes('"rate_limit_exceeded"'))!;
    const events = await replaySse(`data: ${line}\n\n`, adapter);
    expect(events.at(-1)).toMatchObject({ type: 'provider-error', error: { kind: 'rate_limit', retryAfterMs: 11_054 } });
  });

  it('a flat error event (the documented shape) is read too', async () => {
    const events = await replaySse('event: error\ndata: {"type":"error","code":"rate_limit_exceeded","message":"slow down","param":null,"sequence_number":2}\n\n', adapter);
    expect(events).toEqual([{ type: 'provider-error', error: { kind: 'rate_limit', code: 'rate_limit_exceeded', message: 'slow down' } }]);
    expect(events[0]).not.toHaveProperty('error.retryAfterMs');
  });

  it('an empty stream yields nothing, so the engine sees it end before content', async () => {
    expect(await replaySse('', adapter)).toEqual([]);
  });
});

describe('OpenAI Responses adapter: HTTP errors', () => {
  it.each([
    ['errors/400-model-not-found-2026.json', 400, 'invalid_request'],
    ['errors/404-model-not-found-2025.json', 404, 'not_found'],
    ['errors/400-unsupported-parameter.json', 400, 'invalid_request'],
    ['errors/429-insufficient-quota.json', 429, 'quota_exhausted'],
    ['errors/429-rate-limit-exceeded.json', 429, 'rate_limit'],
    ['errors/500-server-error.json', 500, 'server_error'],
  ])('%s is %s → %s', (name, status, kind) => {
    expect(adapter.parseError(status, {}, readFixture(FIXTURES, name), NOW_MS).kind).toBe(kind);
  });

  it('the recorded 400 over HTTP', () => {
    const fixture = parseHttpFixture(readFixture(FIXTURES, 'errors/400-invalid-request-error.http'));
    expect(adapter.parseError(fixture.status, fixture.headers, fixture.body, NOW_MS)).toMatchObject({ kind: 'invalid_request', status: 400 });
  });
});
