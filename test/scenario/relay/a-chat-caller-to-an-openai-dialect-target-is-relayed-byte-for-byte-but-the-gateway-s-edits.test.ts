import { beforeEach, expect, it } from 'vitest';
import { gatewayBeforeCaptureHost, type HostAnswer } from '../../support/capture-host.js';
import { postChat, MOCK_CONNECTIONS } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord } from '../scenario-helpers.js';

/**
 * A Chat Completions caller and a target speaking Chat Completions (an OpenAI-compatible host
 * here, a server of the test's own that keeps the bytes it got and answers with bytes of its
 * own): the body goes upstream as the caller wrote it — unknown fields, key order, spacing,
 * escapes — with only the gateway's edits, and the answer comes back as the host wrote it. A
 * body with cache markers (which OpenAI-wire targets are never sent) and a connection with
 * `relay: off` are translated; so is a failover to a target of another wire format.
 */

/** The host's answers, each written with odd spacing, fields no SDK knows and keys in no usual order. */
const WHOLE_ANSWER =
  '{"choices": [ {"index":0,"message":{"role":"assistant","content":"caf\\u00e9 \\ud83d\\ude00","annotations":[]},"logprobs":null,"finish_reason":"stop"}],\n "id":"chatcmpl-host-1", "object":"chat.completion","created":1765000000,"model":"host-model-2025","usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15},"x_host_extra":{"latency_ms":7.50}}';
const STREAM_FRAMES = [
  '{"id":"chatcmpl-host-2","object":"chat.completion.chunk","created":1765000000,"model":"host-model-2025","obfuscation":"q1","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}',
  '{"id":"chatcmpl-host-2","object":"chat.completion.chunk","created":1765000000,"model":"host-model-2025","obfuscation":"q2","choices":[{"index":0,"delta":{"content":"caf\\u00e9"},"finish_reason":null}],"usage":null}',
  '{"id":"chatcmpl-host-2","object":"chat.completion.chunk","created":1765000000,"model":"host-model-2025","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}',
  '{"id":"chatcmpl-host-2","object":"chat.completion.chunk","created":1765000000,"model":"host-model-2025","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":2,"total_tokens":14}}',
];
const STREAM_TEXT = STREAM_FRAMES.map((frame) => `data: ${frame}\n\n`).join('') + 'data: [DONE]\n\n';

/** What the host does with the next request: answer (whole or streamed), fail with 503, cut its stream after two frames, or close it after its finish with no `[DONE]`. */
let hostAnswers: 'answer' | 'unavailable' | 'cut' | 'no-done' = 'answer';

function hostAnswer(text: string): HostAnswer {
  if (hostAnswers === 'unavailable') return { status: 503, contentType: 'application/json', body: '{"error":{"message":"busy","type":"server_error"}}' };
  if (hostAnswers === 'cut') return { status: 200, contentType: 'text/event-stream', body: STREAM_FRAMES.slice(0, 2).map((frame) => `data: ${frame}\n\n`).join('') };
  if (hostAnswers === 'no-done') return { status: 200, contentType: 'text/event-stream', body: STREAM_FRAMES.map((frame) => `data: ${frame}\n\n`).join('') };
  if ((JSON.parse(text) as { stream?: boolean }).stream === true) return { status: 200, contentType: 'text/event-stream', body: STREAM_TEXT };
  return { status: 200, contentType: 'application/json', body: WHOLE_ANSWER };
}

const served = gatewayBeforeCaptureHost(hostAnswer, (hostUrl) => `
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
  host: { provider: openai-compatible, base_url: "${hostUrl}/v1", api_key: host-key }
  host-translated: { provider: openai-compatible, base_url: "${hostUrl}/v1", api_key: host-key, relay: off }
routes:
  chat:
    targets: [{ connection: host, model: upstream-model }]
  translated:
    targets: [{ connection: host-translated, model: upstream-model }]
  fails-over:
    retries: 0
    targets:
      - { connection: host, model: upstream-model }
      - { connection: mock-anthropic, model: claude-standby }
`);
beforeEach(() => {
  hostAnswers = 'answer';
});

/** A caller's body with everything a translation would lose or reorder. */
function callerBody(fields: string): string {
  return `{ "messages" : [{"role":"system","content":[{"type":"text","text":"You are terse."}]},{"role":"user","content":"caf\\u00e9?"}],
  "model": "chat", "temperature": 1.0, "x_caller_extra": {"b": 2, "a": [1, "}"]}${fields} }`;
}

it('sends a whole request upstream as written but its model, and returns the host’s body as written', async () => {
  const sent = callerBody('');
  const response = await postChat(served.gateway.url, sent);
  expect(response.status).toBe(200);
  expect(await response.text()).toBe(WHOLE_ANSWER);
  expect(served.host.received).toEqual([sent.replace('"model": "chat"', '"model": "upstream-model"')]);
  const record = await fetchRecord(served.gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts).toMatchObject([{ connection: 'host', kind: 'ok', relay: true, usage: { input_tokens: 12, output_tokens: 3 } }]);
});

it('relays a stream frame by frame, asking the host for the usage chunk only when the caller did not, and keeping it from that caller', async () => {
  const asked = callerBody(', "stream": true, "stream_options": {"include_usage": true}');
  const withUsage = await postChat(served.gateway.url, asked);
  expect(await withUsage.text()).toBe(STREAM_TEXT);
  expect(served.host.received).toEqual([asked.replace('"model": "chat"', '"model": "upstream-model"')]);

  served.host.received.length = 0;
  const notAsked = callerBody(', "stream": true');
  const withoutUsage = await postChat(served.gateway.url, notAsked);
  expect(await withoutUsage.text()).toBe(STREAM_FRAMES.slice(0, 3).map((frame) => `data: ${frame}\n\n`).join('') + 'data: [DONE]\n\n');
  // The one edit metering needs, appended; the rest as written.
  expect(served.host.received).toEqual([notAsked.replace('"model": "chat"', '"model": "upstream-model"').replace(/ }$/, ' ,"stream_options":{"include_usage":true}}')]);
  const record = await fetchRecord(served.gateway.url, withoutUsage.headers.get('x-request-id')!);
  expect(record.attempts).toMatchObject([{ kind: 'ok', relay: true, usage: { input_tokens: 12, output_tokens: 2 } }]);
  expect(record.status).toBe('ok');
});

it('translates a body with cache markers, which OpenAI-wire targets are never sent', async () => {
  const marked = callerBody('').replace('"text":"You are terse."', '"text":"You are terse.","cache_control":{"type":"ephemeral"}');
  const response = await postChat(served.gateway.url, marked);
  expect(response.status).toBe(200);
  expect(served.host.received[0]!.startsWith('{"model":"upstream-model","messages":')).toBe(true);
  expect(served.host.received[0]).not.toContain('cache_control');
  const record = await fetchRecord(served.gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts[0]!.relay).toBeUndefined();
});

it('translates a conversation with a tool-call id the host would refuse, fitting the id', async () => {
  const longId = `toolu_${'x'.repeat(50)}`;
  const body = callerBody('').replace(
    '{"role":"user","content":"caf\\u00e9?"}',
    `{"role":"user","content":"caf\\u00e9?"},{"role":"assistant","content":null,"tool_calls":[{"id":"${longId}","type":"function","function":{"name":"lookup","arguments":"{}"}}]},{"role":"tool","tool_call_id":"${longId}","content":"found"}`,
  );
  const response = await postChat(served.gateway.url, body);
  expect(response.status).toBe(200);
  const sent = JSON.parse(served.host.received[0]!) as { messages: { tool_calls?: { id: string }[]; tool_call_id?: string }[] };
  const fitted = sent.messages[2]!.tool_calls![0]!.id;
  expect(fitted).toMatch(/^call_[0-9a-f]{35}$/);
  expect(sent.messages[3]!.tool_call_id).toBe(fitted);
  const record = await fetchRecord(served.gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts[0]!.relay).toBeUndefined();
});

it('translates for a connection with relay: off', async () => {
  const response = await postChat(served.gateway.url, callerBody('').replace('"model": "chat"', '"model": "translated"'));
  expect(response.status).toBe(200);
  const body = (await response.json()) as { choices: { message: { content: string } }[] };
  expect(body.choices[0]!.message.content).toBe('café 😀');
  expect(served.host.received[0]!.startsWith('{"model":"upstream-model","messages":')).toBe(true);
  const record = await fetchRecord(served.gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts[0]!.relay).toBeUndefined();
});

it('fails over from a relayed attempt to a translated one on another wire format, whole and streamed', async () => {
  hostAnswers = 'unavailable';
  const whole = await postChat(served.gateway.url, callerBody('').replace('"model": "chat"', '"model": "fails-over"'));
  expect(whole.status).toBe(200);
  const answer = (await whole.json()) as { object: string; choices: { message: { content: string } }[] };
  expect(answer.object).toBe('chat.completion');
  expect(answer.choices[0]!.message.content.length).toBeGreaterThan(0);
  let record = await fetchRecord(served.gateway.url, whole.headers.get('x-request-id')!);
  expect(record.attempts.map(({ connection, kind, relay }) => ({ connection, kind, relay }))).toEqual([
    { connection: 'host', kind: 'server_error', relay: true },
    { connection: 'mock-anthropic', kind: 'ok', relay: undefined },
  ]);

  const streamed = await postChat(served.gateway.url, callerBody(', "stream": true').replace('"model": "chat"', '"model": "fails-over"'));
  const text = await streamed.text();
  // The translated target's stream, rendered as Chat Completions chunks by the gateway.
  expect(text).toContain('"object":"chat.completion.chunk"');
  expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  record = await fetchRecord(served.gateway.url, streamed.headers.get('x-request-id')!);
  expect(record.attempts.map(({ kind, relay }) => ({ kind, relay }))).toEqual([
    { kind: 'server_error', relay: true },
    { kind: 'ok', relay: undefined },
  ]);
});

it('ends a relayed stream the host cut after the commit point with the gateway’s own error frame, and no [DONE]', async () => {
  hostAnswers = 'cut';
  const response = await postChat(served.gateway.url, callerBody(', "stream": true'));
  const text = await response.text();
  const frames = text.split('\n\n').filter((frame) => frame !== '');
  expect(frames.slice(0, 2)).toEqual(STREAM_FRAMES.slice(0, 2).map((frame) => `data: ${frame}`));
  expect(frames).toHaveLength(3);
  expect(JSON.parse(frames[2]!.slice('data: '.length))).toMatchObject({ error: { type: 'stream_interrupted', code: 'stream_interrupted' } });
  const record = await fetchRecord(served.gateway.url, response.headers.get('x-request-id')!);
  expect(record).toMatchObject({ status: 'interrupted', attempts: [{ kind: 'stream_interrupted', relay: true, committed: true }] });
});

it('ends a relayed stream whose host closed after its finish without `[DONE]` with the gateway’s own `[DONE]`', async () => {
  hostAnswers = 'no-done';
  const response = await postChat(served.gateway.url, callerBody(', "stream": true, "stream_options": {"include_usage": true}'));
  expect(await response.text()).toBe(STREAM_TEXT);
  const record = await fetchRecord(served.gateway.url, response.headers.get('x-request-id')!);
  expect(record).toMatchObject({ status: 'ok', attempts: [{ kind: 'ok', relay: true }] });
});
