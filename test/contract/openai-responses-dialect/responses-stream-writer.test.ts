import { describe, expect, it } from 'vitest';
import { ResponsesStreamWriter } from '../../../src/dialects/openai-responses/responses-stream-writer.js';
import type { ResponsesEcho } from '../../../src/dialects/openai-responses/responses-echo.js';
import type { StreamEvent } from '../../../src/providers/spec.js';
import { SseDecoder } from '../../../src/streaming/decode-sse.js';
import { readFixture } from '../../support/fixtures.js';

type Json = Record<string, unknown>;
const DIALECT = 'openai-responses-dialect';

const ECHO: ResponsesEcho = {
  instructions: null,
  previous_response_id: null,
  max_output_tokens: null,
  parallel_tool_calls: true,
  reasoning: { effort: null, summary: null },
  store: true,
  temperature: 1,
  text: { format: { type: 'text' } },
  tool_choice: 'auto',
  tools: [],
  top_p: 1,
  user: null,
  metadata: {},
};

/** `{event, data}` of every SSE frame, checking that each `data.type` repeats its `event:` name. */
function eventsOf(text: string): { event: string; data: Json }[] {
  const frames: { event?: string; data: string }[] = [];
  new SseDecoder().push(new TextEncoder().encode(text.endsWith('\n\n') ? text : `${text}\n\n`), frames as never);
  return frames.map((frame) => {
    const data = JSON.parse(frame.data) as Json;
    expect(data.type).toBe(frame.event);
    return { event: frame.event!, data };
  });
}

function fixtureEvents(name: string): { event: string; data: Json }[] {
  return eventsOf(readFixture(DIALECT, name));
}

function render(events: readonly StreamEvent[], echo: ResponsesEcho = ECHO): string {
  const writer = new ResponsesStreamWriter({ requestId: 'req_test1', model: 'requested-model', echo });
  let text = '';
  for (const event of events) text += writer.write(event);
  return events.some((event) => event.type === 'provider-error') ? text : text + writer.end();
}

/** The event names, with a run of one delta type counted once: how text is cut is the upstream's business. */
function outline(events: readonly { event: string }[]): string[] {
  return events.map(({ event }) => event).filter((event, index, all) => !(event.endsWith('.delta') && all[index - 1] === event));
}

/** Keys an event of ours lacks, or has beyond, the recorded event of the same type (`obfuscation` is optional). */
function keyDifference(ours: Json, recorded: Json): { missing: string[]; extra: string[] } {
  const oursKeys = new Set(Object.keys(ours));
  const recordedKeys = new Set(Object.keys(recorded).filter((key) => key !== 'obfuscation'));
  return { missing: [...recordedKeys].filter((key) => !oursKeys.has(key)), extra: [...oursKeys].filter((key) => !recordedKeys.has(key)) };
}

const usage = { type: 'usage', usage: { inputTokens: 147, outputTokens: 16 } } as const;

describe('the Responses stream writer against the recorded streams', () => {
  it('stream-text.sse: the same event sequence, keys and text, numbered from 0', () => {
    const recorded = fixtureEvents('stream-text.sse');
    const deltas = recorded.flatMap(({ data }) => (data.type === 'response.output_text.delta' ? [data.delta as string] : []));
    const ours = eventsOf(
      render([
        { type: 'response-start', responseModel: 'gpt-5.5-2026-04-23', created: 1785273855 },
        ...deltas.map((text) => ({ type: 'text-delta', text }) as const),
        { type: 'finish', reason: 'stop' },
        usage,
      ]),
    );
    expect(ours.map(({ event }) => event)).toEqual(recorded.map(({ event }) => event));
    expect(ours.map(({ data }) => data.sequence_number)).toEqual(ours.map((_, index) => index));
    for (const [index, { data }] of ours.entries()) {
      if (data.type === 'response.created' || data.type === 'response.in_progress' || data.type === 'response.completed') continue;
      expect({ type: data.type, ...keyDifference(data, recorded[index]!.data) }).toEqual({ type: data.type, missing: [], extra: [] });
    }
    const done = ours.find(({ event }) => event === 'response.output_text.done')!.data;
    expect(done.text).toBe('The capital of PotatoLand is **Potato City**.');
    const completed = ours.at(-1)!.data.response as Json;
    const recordedCompleted = recorded.at(-1)!.data.response as Json;
    expect(completed).toMatchObject({ status: 'completed', model: 'gpt-5.5-2026-04-23', created_at: 1785273855, error: null, incomplete_details: null });
    expect(completed.usage).toEqual({
      input_tokens: 147,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 16,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 163,
    });
    // Every field we send is one OpenAI sends, in its order; the output item is the recorded one but for its id.
    const recordedKeys = Object.keys(recordedCompleted);
    expect(Object.keys(completed).filter((key) => !recordedKeys.includes(key))).toEqual([]);
    expect(Object.keys(completed)).toEqual(recordedKeys.filter((key) => key in completed));
    const { id: _recordedId, phase: _phase, ...recordedItem } = (recordedCompleted.output as Json[])[0]!;
    const { id, ...item } = (completed.output as Json[])[0]!;
    expect(item).toEqual(recordedItem);
    expect(id).toMatch(/^msg_/);
    expect(completed.id).toBe('resp_test1');
  });

  it('stream-function-call.sse: the call item added, argument deltas, done, then completed', () => {
    // The recording's first item is OpenAI's encrypted reasoning, which a translated stream never has.
    const recorded = fixtureEvents('stream-function-call.sse').filter(({ data }) => (data.item as Json | undefined)?.type !== 'reasoning');
    const added = recorded.find(({ event }) => event === 'response.output_item.added')!.data.item as Json;
    const deltas = recorded.flatMap(({ data }) => (data.type === 'response.function_call_arguments.delta' ? [data.delta as string] : []));
    const ours = eventsOf(
      render([
        { type: 'response-start', responseModel: 'gpt-5-2025-08-07' },
        { type: 'tool-call-start', index: 0, id: added.call_id as string, name: added.name as string },
        ...deltas.map((argumentsDelta) => ({ type: 'tool-call-delta', index: 0, argumentsDelta }) as const),
        { type: 'tool-call-end', index: 0 },
        { type: 'finish', reason: 'tool_calls' },
        usage,
      ]),
    );
    expect(ours.map(({ event }) => event)).toEqual(recorded.map(({ event }) => event));
    for (const [index, { data }] of ours.entries()) {
      if (!String(data.type).startsWith('response.function_call') && !String(data.type).startsWith('response.output_item')) continue;
      expect({ type: data.type, ...keyDifference(data, recorded[index]!.data) }).toEqual({ type: data.type, missing: [], extra: [] });
      if (data.item) expect(Object.keys(data.item as Json).sort()).toEqual(Object.keys(recorded[index]!.data.item as Json).sort());
    }
    const done = ours.find(({ event }) => event === 'response.output_item.done')!.data.item as Json;
    expect(done).toMatchObject({ type: 'function_call', status: 'completed', arguments: '{"result":6666}', call_id: 'call_CWXgs68YprAjp6t0371hiPOI', name: 'final_result' });
    expect((ours.at(-1)!.data.response as Json).output).toEqual([done]);
  });

  it('stream-reasoning-summary.sse: with a summary asked for, reasoning streams as a summary item before the message', () => {
    const recorded = fixtureEvents('stream-reasoning-summary.sse');
    const ours = eventsOf(
      render(
        [
          { type: 'response-start', responseModel: 'o3-mini-2025-01-31' },
          { type: 'reasoning-delta', text: '**Providing' },
          { type: 'reasoning-delta', text: ' street crossing' },
          { type: 'text-delta', text: "I'm" },
          { type: 'text-delta', text: ' not' },
          { type: 'finish', reason: 'stop' },
          usage,
        ],
        { ...ECHO, reasoning: { effort: 'high', summary: 'detailed' } },
      ),
    );
    // The recording's reasoning has four summary parts; a translated one has one.
    const oneSummaryPart = recorded.filter(({ data }) => data.summary_index === undefined || data.summary_index === 0);
    expect(outline(ours)).toEqual(outline(oneSummaryPart));
    for (const { data } of ours) {
      const counterpart = oneSummaryPart.find((event) => event.data.type === data.type)!.data;
      if (String(data.type).startsWith('response.reasoning_summary')) {
        expect({ type: data.type, ...keyDifference(data, counterpart) }).toEqual({ type: data.type, missing: [], extra: [] });
      }
    }
    const reasoning = ours.find(({ data }) => data.type === 'response.output_item.done')!.data.item as Json;
    expect(reasoning).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: '**Providing street crossing' }], id: expect.stringMatching(/^rs_/) });
    expect(ours.find(({ data }) => data.type === 'response.output_text.delta')!.data.output_index).toBe(1);
  });

  it('reasoning is not shown when the caller did not ask for a summary', () => {
    const ours = eventsOf(render([{ type: 'reasoning-delta', text: 'hidden' }, { type: 'text-delta', text: 'shown' }, { type: 'finish', reason: 'stop' }]));
    expect(ours.map(({ event }) => event)).not.toContain('response.reasoning_summary_text.delta');
    expect(JSON.stringify(ours)).not.toContain('hidden');
  });

  it('stream-incomplete.sse: a length finish ends with response.incomplete and its reason', () => {
    const recorded = fixtureEvents('stream-incomplete.sse');
    const ours = eventsOf(render([{ type: 'text-delta', text: 'Hello,' }, { type: 'finish', reason: 'length' }, usage]));
    expect(ours.map(({ event }) => event)).toEqual(recorded.map(({ event }) => event));
    const last = ours.at(-1)!.data.response as Json;
    expect(last).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    expect((last.output as Json[])[0]).toMatchObject({ status: 'incomplete', content: [{ type: 'output_text', text: 'Hello,' }] });
    const content = eventsOf(render([{ type: 'text-delta', text: 'x' }, { type: 'finish', reason: 'content_filter' }]));
    expect(content.at(-1)).toMatchObject({ event: 'response.incomplete', data: { response: { incomplete_details: { reason: 'content_filter' } } } });
  });

  it('stream-failed.sse: an in-band error is an error event nesting its error, then response.failed', () => {
    const recorded = fixtureEvents('stream-failed.sse');
    const ours = eventsOf(
      render([
        { type: 'response-start' },
        { type: 'provider-error', error: { kind: 'stream_interrupted', message: 'The upstream stream was cut.' } },
      ]),
    );
    expect(ours.map(({ event }) => event)).toEqual(recorded.map(({ event }) => event));
    const [error, failed] = [ours[2]!.data, ours[3]!.data];
    expect(Object.keys(error.error as Json).sort()).toEqual(Object.keys(recorded[2]!.data.error as Json).sort());
    expect(error.error).toEqual({ type: 'stream_interrupted', code: 'stream_interrupted', message: 'The upstream stream was cut.', param: null });
    const response = failed.response as Json;
    expect(Object.keys(response.error as Json).sort()).toEqual(Object.keys((recorded[3]!.data.response as Json).error as Json).sort());
    expect(response).toMatchObject({ status: 'failed', error: { code: 'stream_interrupted', message: 'The upstream stream was cut.' }, usage: null });
  });

  it('stream-error-observed-payloads.txt: the error event has the nested shape the SDK raises on', () => {
    const observed = readFixture(DIALECT, 'stream-error-observed-payloads.txt')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Json);
    // The last payload there is a WebSocket-mode frame (no sequence number, a status): not an SSE event.
    const nested = observed.filter((payload) => payload.type === 'error' && 'sequence_number' in payload);
    expect(nested.length).toBeGreaterThan(0);
    const ours = eventsOf(new ResponsesStreamWriter({ requestId: 'req_x', model: 'm', echo: ECHO }).error({ kind: 'server_error', message: 'boom' }));
    for (const payload of nested) {
      expect(Object.keys(ours[0]!.data).sort()).toEqual(Object.keys(payload).sort());
      expect(Object.keys(ours[0]!.data.error as Json).sort()).toEqual(Object.keys(payload.error as Json).sort());
    }
    const ourFailure = Object.keys((ours[1]!.data.response as Json).error as Json).sort();
    for (const payload of observed.filter((observedPayload) => observedPayload.type === 'response.failed')) {
      expect(ourFailure).toEqual(Object.keys((payload.response as Json).error as Json).sort());
    }
  });

  it('a final error after a heartbeat names the request and its attempts, with no response.created before it', () => {
    const writer = new ResponsesStreamWriter({ requestId: 'req_hb', model: 'm', echo: ECHO });
    const ours = eventsOf(writer.error({ kind: 'server_error', message: 'all failed', requestId: 'req_hb', attempts: [{ n: 1 }] }));
    expect(ours.map(({ event }) => event)).toEqual(['error', 'response.failed']);
    expect(ours[0]!.data).toMatchObject({ sequence_number: 0, error: { request_id: 'req_hb', attempts: [{ n: 1 }] } });
  });

  it('a refusal streams as a refusal part', () => {
    const ours = eventsOf(render([{ type: 'refusal-delta', text: 'I can' }, { type: 'refusal-delta', text: 'not.' }, { type: 'finish', reason: 'stop' }]));
    expect(outline(ours)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.refusal.delta',
      'response.refusal.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(ours.find(({ event }) => event === 'response.refusal.done')!.data.refusal).toBe('I cannot.');
  });

  it('text then two calls: three items in output order, each closed before the response completes', () => {
    const ours = eventsOf(
      render([
        { type: 'text-delta', text: 'Checking.' },
        { type: 'tool-call-start', index: 0, id: 'call_a', name: 'a' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
        { type: 'tool-call-start', index: 1, id: 'call_b', name: 'b' },
        { type: 'tool-call-delta', index: 1, argumentsDelta: '{"x":1}' },
        { type: 'finish', reason: 'tool_calls' },
      ]),
    );
    const output = (ours.at(-1)!.data.response as Json).output as Json[];
    expect(output.map((item) => item.type)).toEqual(['message', 'function_call', 'function_call']);
    expect(output.map((item) => item.arguments)).toEqual([undefined, '{}', '{"x":1}']);
    expect(ours.filter(({ event }) => event === 'response.output_item.done').map(({ data }) => data.output_index)).toEqual([0, 1, 2]);
    // No [DONE]: a Responses stream ends with its terminal event.
    expect(render([{ type: 'text-delta', text: 'x' }])).not.toContain('[DONE]');
  });
});

describe('items a Responses upstream passes through', () => {
  const searchCall = { id: 'ws_1', type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'news' } };

  it('a hosted tool call is its own output item, added and done as it came, before the message', () => {
    const writer = new ResponsesStreamWriter({ requestId: 'req_pass', model: 'm', echo: ECHO });
    const events = eventsOf(
      [
        writer.write({ type: 'response-start' }),
        writer.write({ type: 'output-item', item: searchCall }),
        writer.write({ type: 'text-delta', text: 'Found it.' }),
        writer.write({ type: 'finish', reason: 'stop' }),
        writer.end(),
      ].join(''),
    );
    const items = events.filter((event) => event.event === 'response.output_item.added').map((event) => event.data.item as Json);
    expect(items.map((item) => item.type)).toEqual(['web_search_call', 'message']);
    expect(events.find((event) => event.event === 'response.output_item.done')!.data).toMatchObject({ output_index: 0, item: searchCall });
    const completed = events.at(-1)!.data.response as { output: Json[] };
    expect(completed.output[0]).toEqual(searchCall);
  });

  it('encrypted reasoning joins the summary item being streamed instead of making a second one', () => {
    const writer = new ResponsesStreamWriter({ requestId: 'req_enc', model: 'm', echo: { ...ECHO, reasoning: { effort: null, summary: 'auto' } } });
    const events = eventsOf(
      [
        writer.write({ type: 'reasoning-delta', text: 'Thinking.' }),
        writer.write({ type: 'output-item', item: { id: 'rs_up', type: 'reasoning', summary: [], encrypted_content: 'opaque' } }),
        writer.write({ type: 'text-delta', text: 'Hi.' }),
        writer.end(),
      ].join(''),
    );
    const reasoning = events.filter((event) => event.event === 'response.output_item.done' && (event.data.item as Json).type === 'reasoning');
    expect(reasoning).toHaveLength(1);
    expect(reasoning[0]!.data.item).toMatchObject({ summary: [{ type: 'summary_text', text: 'Thinking.' }], encrypted_content: 'opaque' });
  });
});
