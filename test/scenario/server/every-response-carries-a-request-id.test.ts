import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: request-id-admin }
${MOCK_CONNECTIONS}
routes:
  answer: { targets: [{ connection: mock-openai, model: gpt-mock }] }
`);
});
afterAll(() => gateway.close());

const chat = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

it.each([
  ['a non-streamed answer', '/v1/chat/completions', chat({ model: 'answer', messages: [{ role: 'user', content: 'hi' }] }), 200],
  ['a streamed answer', '/v1/chat/completions', chat({ model: 'answer', stream: true, messages: [{ role: 'user', content: 'hi' }] }), 200],
  ['a bad body', '/v1/chat/completions', { method: 'POST', body: '{not json' }, 400],
  ['an unknown model', '/v1/chat/completions', chat({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] }), 404],
  ['an unknown path', '/v1/nothing-here', { method: 'GET' }, 404],
  ['a wrong method', '/v1/chat/completions', { method: 'GET' }, 405],
  ['an admin call without the token', '/admin/health', { method: 'GET' }, 401],
  ['the model list', '/v1/models', { method: 'GET' }, 200],
  ['the metrics', '/metrics', { method: 'GET' }, 200],
])('%s carries exactly one x-request-id', async (_what, path, init, status) => {
  const response = await fetch(`${gateway.url}${path}`, { ...init, signal: AbortSignal.timeout(5_000) });
  await response.text();
  expect(response.status).toBe(status);
  expect(response.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]+$/);
});
