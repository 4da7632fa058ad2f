import { beforeEach, expect, it } from 'vitest';
import { gatewayBeforeCaptureHost, type HostAnswer } from '../../support/capture-host.js';
import { socketsDroppedAfterEach } from '../../support/responses-socket.js';
import { MOCK_CONNECTIONS } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord } from '../scenario-helpers.js';

/**
 * A Responses caller and a target on its own Responses API (an OpenAI connection pointed at a
 * server of the test's own that keeps the bytes it got and answers with bytes of its own): the
 * body goes upstream as the caller wrote it but the model, and the answer comes back as the host
 * wrote it but the response's id, which is the gateway's (it names the record and keys the stored
 * conversation). A stored answer is kept before its last byte leaves, so the next turn finds it;
 * that turn, expanded from the store, is built, not relayed. A socket's turn is relayed too. A
 * failover to a target of another wire format is translated as ever.
 */

const WHOLE_ANSWER =
  '{"id":"resp_host_1", "object":"response","created_at":1765000000,"status":"completed","model":"host-model-2025",\n "output":[{"type":"message","id":"msg_host_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"caf\\u00e9","annotations":[]}]}],"usage":{"input_tokens":12,"output_tokens":3,"total_tokens":15},"x_host_extra":{"latency_ms":7.50}}';
const COMPLETED_OUTPUT = '[{"type":"message","id":"msg_host_2","status":"completed","role":"assistant","content":[{"type":"output_text","text":"caf\\u00e9","annotations":[]}]}]';
const STREAM_EVENTS: [string, string][] = [
  ['response.created', '{"type":"response.created","sequence_number":0,"response":{"id":"resp_host_2","object":"response","created_at":1765000000,"status":"in_progress","model":"host-model-2025","output":[],"usage":null}}'],
  ['response.output_item.added', '{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"message","id":"msg_host_2","status":"in_progress","role":"assistant","content":[]}}'],
  ['response.output_text.delta', '{"type":"response.output_text.delta","sequence_number":2,"item_id":"msg_host_2","output_index":0,"content_index":0,"delta":"caf\\u00e9","obfuscation":"q1"}'],
  ['response.output_item.done', `{"type":"response.output_item.done","sequence_number":3,"output_index":0,"item":${COMPLETED_OUTPUT.slice(1, -1)}}`],
  ['response.completed', `{"type":"response.completed","sequence_number":4,"response":{"id":"resp_host_2","object":"response","created_at":1765000000,"status":"completed","model":"host-model-2025","output":${COMPLETED_OUTPUT},"usage":{"input_tokens":12,"output_tokens":2,"total_tokens":14},"x_host_extra":1.0}}`],
];
const STREAM_TEXT = STREAM_EVENTS.map(([event, data]) => `event: ${event}\ndata: ${data}\n\n`).join('');

let hostAnswers: 'answer' | 'unavailable' = 'answer';
const openSocket = socketsDroppedAfterEach();

function hostAnswer(text: string): HostAnswer {
  if (hostAnswers === 'unavailable') return { status: 503, contentType: 'application/json', body: '{"error":{"message":"busy","type":"server_error"}}' };
  if ((JSON.parse(text) as { stream?: boolean }).stream === true) return { status: 200, contentType: 'text/event-stream', body: STREAM_TEXT };
  return { status: 200, contentType: 'application/json', body: WHOLE_ANSWER };
}

const served = gatewayBeforeCaptureHost(hostAnswer, (hostUrl) => `
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
  host: { provider: openai, base_url: "${hostUrl}/v1", api_key: host-key }
routes:
  relayed:
    targets: [{ connection: host, model: upstream-model }]
  fails-over:
    retries: 0
    targets:
      - { connection: host, model: upstream-model }
      - { connection: mock-anthropic, model: claude-standby }
`);
beforeEach(() => {
  hostAnswers = 'answer';
});

function postResponses(body: string): Promise<Response> {
  return fetch(`${served.gateway.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(15_000) });
}

/** A caller's body with what a rebuild would lose or reorder. */
function callerBody(fields: string): string {
  return `{ "input" : [{"type":"message","role":"user","content":[{"type":"input_text","text":"caf\\u00e9?"}]}],
  "model": "relayed", "temperature": 1.0, "x_caller_extra": {"b": 2, "a": [1, "}"]}${fields} }`;
}

function gatewayIdOf(response: Response): string {
  return `resp_${response.headers.get('x-request-id')!.slice('req_'.length)}`;
}

it('sends a whole request upstream as written but its model, and returns the host’s body as written but the gateway’s id', async () => {
  const sent = callerBody(', "store": false');
  const response = await postResponses(sent);
  expect(response.status).toBe(200);
  expect(await response.text()).toBe(WHOLE_ANSWER.replace('"id":"resp_host_1"', `"id":"${gatewayIdOf(response)}"`));
  expect(served.host.received).toEqual([sent.replace('"model": "relayed"', '"model": "upstream-model"')]);
  const record = await fetchRecord(served.gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts).toMatchObject([{ connection: 'host', kind: 'ok', relay: true, usage: { input_tokens: 12, output_tokens: 3 } }]);
});

it('relays a stream event by event, each response object under the gateway’s id', async () => {
  const sent = callerBody(', "stream": true, "store": false');
  const response = await postResponses(sent);
  const id = gatewayIdOf(response);
  expect(await response.text()).toBe(STREAM_TEXT.replaceAll('"response":{"id":"resp_host_2"', `"response":{"id":"${id}"`));
  expect(served.host.received).toEqual([sent.replace('"model": "relayed"', '"model": "upstream-model"')]);
  const record = await fetchRecord(served.gateway.url, response.headers.get('x-request-id')!);
  expect(record).toMatchObject({ status: 'ok', attempts: [{ kind: 'ok', relay: true, usage: { input_tokens: 12, output_tokens: 2 } }] });
});

it('stores a relayed answer, whole or streamed, for the next turn, which is built from the store rather than relayed', async () => {
  const whole = await postResponses(callerBody(''));
  const wholeId = ((await whole.json()) as { id: string }).id;
  expect(wholeId).toBe(gatewayIdOf(whole));
  const streamed = await postResponses(callerBody(', "stream": true'));
  const streamedId = gatewayIdOf(streamed);
  expect(await streamed.text()).toBe(STREAM_TEXT.replaceAll('"response":{"id":"resp_host_2"', `"response":{"id":"${streamedId}"`));

  for (const previous of [wholeId, streamedId]) {
    served.host.received.length = 0;
    const next = await postResponses(`{"model":"relayed","input":"and then?","previous_response_id":"${previous}","store":false}`);
    expect(next.status).toBe(200);
    const upstream = JSON.parse(served.host.received[0]!) as { input: { role?: string; content?: unknown }[]; previous_response_id?: string };
    expect(upstream.previous_response_id).toBeUndefined();
    expect(upstream.input.map((item) => item.role)).toEqual(['user', 'assistant', 'user']);
    const record = await fetchRecord(served.gateway.url, next.headers.get('x-request-id')!);
    expect(record.attempts[0]!.relay).toBeUndefined();
  }
});

it('fails over from a relayed attempt to a translated one on another wire format, streamed', async () => {
  hostAnswers = 'unavailable';
  const response = await postResponses(callerBody(', "stream": true, "store": false').replace('"model": "relayed"', '"model": "fails-over"'));
  const text = await response.text();
  expect(text).toContain(`"id":"${gatewayIdOf(response)}"`);
  expect(text).toContain('event: response.completed');
  const record = await fetchRecord(served.gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts.map(({ connection, kind, relay }) => ({ connection, kind, relay }))).toEqual([
    { connection: 'host', kind: 'server_error', relay: true },
    { connection: 'mock-anthropic', kind: 'ok', relay: undefined },
  ]);
});

it('builds a body holding a reasoning item’s `origin`, the gateway’s own field', async () => {
  const body = callerBody(', "store": false').replace('"input" : [', '"input" : [{"type":"reasoning","id":"rs_1","summary":[],"origin":"anthropic"},');
  const response = await postResponses(body);
  expect(response.status).toBe(200);
  expect(served.host.received[0]).not.toContain('"origin"');
  const record = await fetchRecord(served.gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts[0]!.relay).toBeUndefined();
});

it('relays a socket’s turn: the message less its event type, streamed, its events the host’s under the gateway’s id', async () => {
  const client = await openSocket(served.gateway.url);
  const events = await client.turn({ model: 'relayed', input: 'over the socket', store: false, x_caller_extra: 1.5 });
  // The socket is the session of turns naming none: its key is OpenAI's cache key, appended.
  expect(served.host.received).toHaveLength(1);
  expect(served.host.received[0]).toMatch(/^\{"model":"upstream-model","input":"over the socket","store":false,"x_caller_extra":1\.5,"stream":true,"prompt_cache_key":"ws_[^"]+"\}$/);
  expect(events.map((event) => event.type)).toEqual(STREAM_EVENTS.map(([event]) => event));
  const completed = events.at(-1) as unknown as { response: { id: string } };
  expect(completed.response.id).toMatch(/^resp_/);
  expect(completed.response.id).not.toBe('resp_host_2');
  const record = await fetchRecord(served.gateway.url, `req_${completed.response.id.slice('resp_'.length)}`);
  expect(record).toMatchObject({ transport: 'websocket', attempts: [{ kind: 'ok', relay: true }] });
});
