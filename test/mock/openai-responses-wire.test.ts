import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAnswerText, startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import { parseFrames, postJson, readBody } from './helpers.js';

let mock: MockProvider;

beforeAll(async () => {
  mock = await startMockProvider();
});

afterAll(async () => {
  await mock.close();
});

const fixtures = new URL('../contract/openai-responses-dialect/__fixtures__/', import.meta.url);

function fixtureEvents(name: string): Record<string, unknown>[] {
  return parseFrames(readFileSync(new URL(name, fixtures), 'utf8')).map((frame) => JSON.parse(frame.data) as Record<string, unknown>);
}

async function streamEvents(model: string): Promise<{ events: Record<string, unknown>[]; frames: { event?: string }[]; ended: boolean }> {
  const response = await postJson(`${mock.url}/v1/responses`, { model, input: 'hi', stream: true });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  const read = await readBody(response);
  const frames = parseFrames(read.text);
  return { events: frames.map((frame) => JSON.parse(frame.data) as Record<string, unknown>), frames, ended: read.ended };
}

/** The event types of a stream with runs of deltas folded into one, so a short and a long answer compare. */
function shape(events: readonly Record<string, unknown>[]): string[] {
  return events.map((event) => String(event.type)).filter((type, index, types) => !(type.endsWith('.delta') && types[index - 1] === type));
}

describe('the mock speaking the Responses API', () => {
  it('answers POST /v1/responses with a response object shaped like the recording', async () => {
    const response = await postJson(`${mock.url}/v1/responses`, { model: 'gpt-mock', input: 'abcdefgh' });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as Record<string, unknown>;
    const recorded = JSON.parse(readFileSync(new URL('response-text.json', fixtures), 'utf8')) as Record<string, unknown>;
    for (const key of Object.keys(answer)) expect(recorded).toHaveProperty(key);
    expect(answer).toMatchObject({ id: 'resp_mock_1', object: 'response', status: 'completed', model: 'gpt-mock' });
    expect(answer.output).toEqual([
      { id: 'msg_mock_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', annotations: [], logprobs: [], text: mockAnswerText(8) }] },
    ]);
    // 8 characters of input: ceil(8 / 4) = 2 input tokens.
    expect(answer.usage).toEqual({ input_tokens: 2, input_tokens_details: { cached_tokens: 0 }, output_tokens: 8, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 10 });
  });

  it('streams the recorded event sequence: named events numbered from 0, no [DONE]', async () => {
    const { events, frames, ended } = await streamEvents('gpt-mock?chunks=3');
    expect(ended).toBe(true);
    expect(shape(events)).toEqual(shape(fixtureEvents('stream-text.sse')));
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(frames.every((frame, index) => frame.event === events[index]!.type)).toBe(true);
    const text = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('');
    expect(text).toBe(mockAnswerText(3));
  });

  it('streams a function call as the recording does', async () => {
    const { events } = await streamEvents('gpt-mock?tool_call=get_weather');
    // The recorded model reasoned first; the mock does not reason.
    const recorded = fixtureEvents('stream-function-call.sse').filter((event) => (event.item as { type?: string } | undefined)?.type !== 'reasoning');
    expect(shape(events)).toEqual(shape(recorded));
    expect(events.at(-1)).toMatchObject({ type: 'response.completed', response: { output: [{ type: 'function_call', name: 'get_weather', call_id: expect.stringMatching(/^call_mock_/) }] } });
  });

  it('finish=length is response.incomplete for max_output_tokens', async () => {
    const { events } = await streamEvents('gpt-mock?finish=length');
    expect(events.at(-1)).toMatchObject({ type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } });
  });

  it('inband_error=overloaded before content is an error event then response.failed; server_error is response.failed alone', async () => {
    const overloaded = await streamEvents('gpt-mock?inband_error=overloaded');
    expect(overloaded.events.map((event) => event.type)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added', 'error', 'response.failed']);
    expect(overloaded.events[4]).toMatchObject({ error: { code: 'server_is_overloaded' } });
    const failed = await streamEvents('gpt-mock?inband_error=server_error');
    expect(failed.events.at(-1)).toMatchObject({ type: 'response.failed', response: { status: 'failed', error: { code: 'server_error' } } });
    expect(failed.events.some((event) => event.type === 'response.completed')).toBe(false);
  });

  it('errors over HTTP are OpenAI’s', async () => {
    const response = await postJson(`${mock.url}/v1/responses`, { model: 'gpt-mock?error=insufficient_quota', input: 'hi' });
    expect(response.status).toBe(429);
    expect(await response.json()).toMatchObject({ error: { code: 'insufficient_quota' } });
  });
});
