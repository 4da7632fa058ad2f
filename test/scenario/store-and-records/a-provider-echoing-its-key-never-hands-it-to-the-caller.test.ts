import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loggerInto } from '../../support/captured-log.js';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

// Keys of no common shape (no sk-, no AIza, sent without "Bearer" in the echo), so only the
// gateway's knowledge of its own configured secrets can catch them.
const KEYS = { openai: 'prov-openai-Zq81kLm0Xw4', anthropic: 'prov-anthropic-Yb72Hn3Rk', gemini: 'prov-gemini-Wc63Jp4Vt9' };
const ALL_KEYS = Object.values(KEYS);

/** What the scripted upstream received, per model: the credential it was sent. */
const received: { model: string; credential: string }[] = [];

/**
 * A small upstream that answers in the OpenAI, Anthropic or Gemini shape and puts the credential
 * it received into every error message, as some providers' "invalid key" errors do. The model
 * name says how to fail: `invalid`, `moderation`, `context`, `midstream` (content, then an
 * in-band error), `slow-invalid` (an invalid request answered after 300 ms).
 */
function scriptedUpstream(): Server {
  return createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      const body = JSON.parse(text) as { model?: string };
      const path = request.url ?? '';
      const gemini = /\/models\/([^:]+):/.exec(path);
      const model = gemini ? decodeURIComponent(gemini[1]!) : body.model!;
      const credential = String(request.headers['x-goog-api-key'] ?? request.headers['x-api-key'] ?? request.headers.authorization ?? '').replace(/^Bearer /, '');
      received.push({ model, credential });
      const answer = () => {
        if (gemini) return geminiAnswer(response, model, credential);
        if (path.startsWith('/v1/messages')) return anthropicAnswer(response, model, credential);
        return openAiAnswer(response, model, credential);
      };
      if (model === 'slow-invalid') setTimeout(answer, 300);
      else answer();
    });
  });
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function openAiAnswer(response: ServerResponse, model: string, key: string): void {
  const error = (code: string | null, message: string) => json(response, 400, { error: { message, type: 'invalid_request_error', param: null, code } });
  if (model === 'moderation') return error('content_policy_violation', `Your request was rejected by the safety system (request from ${key}).`);
  if (model === 'context') return error('context_length_exceeded', `This model's maximum context length is 8192 tokens (request from ${key}).`);
  if (model === 'midstream') {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }] };
    response.write(`data: ${JSON.stringify(chunk)}\n\n`);
    response.end(`data: ${JSON.stringify({ error: { message: `The server had an error processing the request for ${key}`, type: 'server_error', param: null, code: null } })}\n\n`);
    return;
  }
  return error(null, `Invalid value for 'temperature' (request authenticated with ${key}).`);
}

function anthropicAnswer(response: ServerResponse, model: string, key: string): void {
  const error = (message: string) => json(response, 400, { type: 'error', error: { type: 'invalid_request_error', message } });
  if (model === 'moderation') return error(`Output blocked by content filtering policy (key ${key})`);
  if (model === 'context') return error(`prompt is too long: 300000 tokens > 200000 maximum (key ${key})`);
  if (model === 'midstream') {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    response.write(
      frame('message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model, content: [], stop_reason: null, usage: { input_tokens: 3, output_tokens: 1 } } }) +
        frame('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
        frame('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } }),
    );
    response.end(frame('error', { type: 'error', error: { type: 'api_error', message: `Internal server error for key ${key}` } }));
    return;
  }
  return error(`messages.0.content: invalid block (key ${key})`);
}

function geminiAnswer(response: ServerResponse, model: string, key: string): void {
  const message = model === 'context' ? `The input token count (3000000) exceeds the maximum number of tokens allowed (1048576) for ${key}.` : `Request contains an invalid argument (sent with ${key}).`;
  json(response, 400, { error: { code: 400, message, status: 'INVALID_ARGUMENT' } });
}

let upstream: Server;
let gateway: TestGateway;
const logLines: string[] = [];

beforeAll(async () => {
  upstream = scriptedUpstream();
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  gateway = await startGateway(
    `
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock: { provider: mock }
  openai-up: { provider: openai, base_url: "${base}/v1", api_key: "\${env:OPENAI_KEY}" }
  anthropic-up: { provider: anthropic, base_url: "${base}", api_key: "\${env:ANTHROPIC_KEY}" }
  gemini-up: { provider: gemini, base_url: "${base}/v1beta", api_key: "\${env:GEMINI_KEY}" }
routes:
  everyone-rejects:
    targets:
      - { connection: openai-up, model: invalid }
      - { connection: anthropic-up, model: invalid }
      - { connection: gemini-up, model: invalid }
  after-heartbeat:
    timeouts: { heartbeat_ms: 50 }
    targets: [{ connection: openai-up, model: slow-invalid }]
`,
    { env: { OPENAI_KEY: KEYS.openai, ANTHROPIC_KEY: KEYS.anthropic, GEMINI_KEY: KEYS.gemini }, logger: loggerInto(logLines) },
  );
});
afterAll(async () => {
  await gateway.close();
  await new Promise((resolve) => upstream.close(resolve));
});
beforeEach(() => {
  received.length = 0;
});

const DIALECTS = {
  chat: (model: string, stream: boolean) => ({ path: '/v1/chat/completions', body: { model, stream, messages: hello } }),
  messages: (model: string, stream: boolean) => ({ path: '/v1/messages', body: { model, stream, max_tokens: 16, messages: hello } }),
} as const;

async function call(dialect: keyof typeof DIALECTS, model: string, stream: boolean): Promise<{ response: Response; text: string }> {
  const { path, body } = DIALECTS[dialect](model, stream);
  const response = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { response, text: await response.text() };
}

/** Nothing the caller got — body, SSE frames, headers — holds a key; and the key did reach the upstream, and its echo the gateway. */
function expectNoKey(response: Response, text: string): void {
  for (const key of ALL_KEYS) expect(text).not.toContain(key);
  for (const [, value] of response.headers) for (const key of ALL_KEYS) expect(value).not.toContain(key);
  expect(text).toContain('[redacted]');
}

describe('an upstream that echoes the credential it received', () => {
  for (const dialect of ['chat', 'messages'] as const) {
    for (const stream of [false, true]) {
      for (const [upstreamName, connection, kinds] of [
        ['OpenAI', 'openai-up', ['invalid', 'moderation', 'context']],
        ['Anthropic', 'anthropic-up', ['invalid', 'moderation', 'context']],
        ['Gemini', 'gemini-up', ['invalid', 'context']],
      ] as const) {
        for (const kind of kinds) {
          it(`${upstreamName} ${kind}, caller ${dialect}${stream ? ' streaming' : ''}: the final error names no key`, async () => {
            const { response, text } = await call(dialect, `${connection}/${kind}`, stream);
            expect(response.status).toBe(400);
            expectNoKey(response, text);
            expect(received).toEqual([{ model: kind, credential: KEYS[upstreamName.toLowerCase() as keyof typeof KEYS] }]);
          });
        }
      }
    }
  }

  for (const dialect of ['chat', 'messages'] as const) {
    it(`every target rejecting the request, caller ${dialect}: neither the message nor any attempt names a key`, async () => {
      const { response, text } = await call(dialect, 'everyone-rejects', false);
      expect(response.status).toBe(400);
      expectNoKey(response, text);
      expect(received.map((entry) => entry.credential)).toEqual([KEYS.openai, KEYS.anthropic, KEYS.gemini]);
      const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
      for (const key of ALL_KEYS) expect(JSON.stringify(record)).not.toContain(key);
    });

    for (const [upstreamName, connection] of [
      ['OpenAI', 'openai-up'],
      ['Anthropic', 'anthropic-up'],
    ] as const) {
      it(`${upstreamName} failing mid-stream, caller ${dialect}: the error event names no key`, async () => {
        const { response, text } = await call(dialect, `${connection}/midstream`, true);
        expect(response.status).toBe(200);
        expect(text).toContain('Hello');
        expect(text).toMatch(/error/);
        expectNoKey(response, text);
        expect(received).toHaveLength(1);
      });
    }

    it(`a final error after a heartbeat, caller ${dialect}: the in-band error names no key`, async () => {
      const { response, text } = await call(dialect, 'after-heartbeat', true);
      expect(response.status).toBe(200);
      expect(text).toContain(': keep-alive');
      expectNoKey(response, text);
    });
  }

  // Whatever the gateway chose to log while serving all of the above (src/telemetry's own test
  // shows a secret put into a log line coming out redacted).
  it('no log line the gateway wrote holds a key', async () => {
    await gateway.app.records.flush();
    for (const line of logLines) for (const key of ALL_KEYS) expect(line).not.toContain(key);
  });
});
