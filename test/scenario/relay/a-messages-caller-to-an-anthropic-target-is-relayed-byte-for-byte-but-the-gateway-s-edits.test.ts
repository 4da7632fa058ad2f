import { expect, it } from 'vitest';
import { gatewayBeforeCaptureHost } from '../../support/capture-host.js';
import { MOCK_CONNECTIONS } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord } from '../scenario-helpers.js';

/**
 * A Messages caller and an Anthropic target: the body goes upstream as the caller wrote it —
 * cache markers, a thinking block and its signature, fields the gateway does not model — with
 * only the model and the output cap edited, and the answer (whole, or each event of a stream,
 * `ping`s included) comes back as Anthropic wrote it.
 */
const WHOLE_ANSWER =
  '{"model":"claude-host-2025","id":"msg_host_1","type":"message","role":"assistant","content":[{"type":"thinking","thinking":"Short.","signature":"sig-abc"},{"type":"text","text":"caf\\u00e9"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":20,"cache_read_input_tokens":0,"output_tokens":4,"service_tier":"standard"},"x_host_extra":true}';
const STREAM_EVENTS: [string, string][] = [
  ['message_start', '{"type":"message_start","message":{"id":"msg_host_2","type":"message","role":"assistant","model":"claude-host-2025","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":20,"output_tokens":1}}}'],
  ['content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}'],
  ['ping', '{"type": "ping"}'],
  ['content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"caf\\u00e9"}}'],
  ['content_block_stop', '{"type":"content_block_stop","index":0}'],
  ['message_delta', '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}'],
  ['message_stop', '{"type":"message_stop"}'],
];
const STREAM_TEXT = STREAM_EVENTS.map(([event, data]) => `event: ${event}\ndata: ${data}\n\n`).join('');


const served = gatewayBeforeCaptureHost(
  (text) =>
    (JSON.parse(text) as { stream?: boolean }).stream === true
      ? { status: 200, contentType: 'text/event-stream', body: STREAM_TEXT }
      : { status: 200, contentType: 'application/json', body: WHOLE_ANSWER },
  (hostUrl) => `
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
  anthropic-host: { provider: anthropic, base_url: "${hostUrl}", api_key: sk-ant-host }
routes:
  claude:
    targets: [{ connection: anthropic-host, model: claude-upstream }]
`,
);

function callerBody(fields: string): string {
  return `{"max_tokens": 1024, "model":"claude",
  "system":[{"type":"text","text":"You are terse.","cache_control":{"type":"ephemeral","ttl":"1h"}}],
  "messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"thinking","thinking":"Earlier.","signature":"sig-earlier"},{"type":"text","text":"Hello"}]},{"role":"user","content":[{"type":"text","text":"caf\\u00e9?","cache_control":{"type":"ephemeral"}}]}],
  "thinking": {"type":"enabled","budget_tokens":512}, "x_caller_extra": [1.50]${fields}}`;
}

async function postMessages(body: string): Promise<Response> {
  return fetch(`${served.gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body,
    signal: AbortSignal.timeout(15_000),
  });
}

it('sends a whole request upstream as written but its model, and returns Anthropic’s body as written', async () => {
  const sent = callerBody('');
  const response = await postMessages(sent);
  expect(response.status).toBe(200);
  expect(await response.text()).toBe(WHOLE_ANSWER);
  expect(served.host.received).toEqual([sent.replace('"model":"claude"', '"model":"claude-upstream"')]);
  const record = await fetchRecord(served.gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts).toMatchObject([{ kind: 'ok', relay: true, usage: { input_tokens: 20, output_tokens: 4 } }]);
});

it('relays a stream event by event, pings included', async () => {
  const sent = callerBody(', "stream": true');
  const response = await postMessages(sent);
  expect(await response.text()).toBe(STREAM_TEXT);
  expect(served.host.received).toEqual([sent.replace('"model":"claude"', '"model":"claude-upstream"')]);
  const record = await fetchRecord(served.gateway.url, response.headers.get('x-request-id')!);
  expect(record).toMatchObject({ status: 'ok', attempts: [{ kind: 'ok', relay: true, usage: { input_tokens: 20, output_tokens: 3 } }] });
});
