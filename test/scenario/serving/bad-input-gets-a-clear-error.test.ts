import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
server: { max_body_bytes: 2048 }
${MOCK_CONNECTIONS}
routes:
  chat: { targets: [{ connection: mock-openai, model: gpt-mock }] }
`);
});
afterAll(() => gateway.close());

interface ErrorBody {
  error: { message: string; type: string; code: string; param: string | null; request_id: string };
}

async function expectError(response: Response, status: number, code: string, param?: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  const body = (await response.json()) as ErrorBody;
  expect(body.error.code).toBe(code);
  expect(body.error.request_id).toBe(response.headers.get('x-request-id'));
  if (param !== undefined) {
    expect(body.error.param).toBe(param);
    expect(body.error.message).toContain(param);
  }
  return body;
}

const hello = [{ role: 'user', content: 'hi' }];

describe('bad input never reaches a provider', () => {
  it('invalid JSON → 400 invalid_json', async () => {
    const body = await expectError(await postChat(gateway.url, '{"model": "chat", "messages": ['), 400, 'invalid_json');
    expect(body.error.type).toBe('invalid_request_error');
  });

  it('an empty body or a non-object → 400', async () => {
    await expectError(await postChat(gateway.url, ''), 400, 'invalid_json');
    await expectError(await postChat(gateway.url, '[1,2]'), 400, 'invalid_request_error');
  });

  it('missing messages → 400 naming messages', async () => {
    await expectError(await postChat(gateway.url, { model: 'chat' }), 400, 'invalid_request_error', 'messages');
  });

  it('wrong types → 400 naming the field', async () => {
    await expectError(await postChat(gateway.url, { model: 'chat', messages: hello, temperature: 'hot' }), 400, 'invalid_request_error', 'temperature');
    await expectError(await postChat(gateway.url, { model: 'chat', messages: hello, max_tokens: -5 }), 400, 'invalid_request_error', 'max_tokens');
    await expectError(await postChat(gateway.url, { model: 'chat', messages: 'hi' }), 400, 'invalid_request_error', 'messages');
    await expectError(await postChat(gateway.url, { model: 'chat', messages: [{ role: 'wizard', content: 'x' }] }), 400, 'invalid_request_error', 'messages[0].role');
    await expectError(await postChat(gateway.url, { model: 'chat', messages: [{ role: 'user', content: 5 }] }), 400, 'invalid_request_error', 'messages[0].content');
    await expectError(await postChat(gateway.url, { model: 7, messages: hello }), 400, 'invalid_request_error', 'model');
    await expectError(await postChat(gateway.url, { model: 'chat', messages: hello, n: 3 }), 400, 'invalid_request_error', 'n');
  });

  it('an unknown model → 404 model_not_found', async () => {
    const body = await expectError(await postChat(gateway.url, { model: 'no-such-route', messages: hello }), 404, 'model_not_found');
    expect(body.error.message).toContain('no-such-route');
    await expectError(await postChat(gateway.url, { model: 'no-such-connection/gpt', messages: hello }), 404, 'model_not_found');
  });

  it('a body over server.max_body_bytes → 413', async () => {
    const big = { model: 'chat', messages: [{ role: 'user', content: 'x'.repeat(4096) }] };
    await expectError(await postChat(gateway.url, big), 413, 'request_too_large');
  });

  it('an unknown path → 404, a wrong method → 405, both with a request id', async () => {
    const missing = await fetch(`${gateway.url}/v1/nothing-here`);
    await expectError(missing, 404, 'not_found');
    const wrongMethod = await fetch(`${gateway.url}/v1/chat/completions`);
    await expectError(wrongMethod, 405, 'method_not_allowed');
  });

  it('a client that sends half a request and hangs up does not hurt the process', async () => {
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(new URL(gateway.url).port), '127.0.0.1', () => {
        socket.write('POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{"model":');
        setTimeout(() => socket.destroy(), 50);
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    const health = await fetch(`${gateway.url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('none of the above contacted a provider', () => {
    expect(gateway.mock.attempts).toHaveLength(0);
  });
});
