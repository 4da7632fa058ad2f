import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import { bedrockBody, bedrockPath, chatBody, chatPath, geminiBody, geminiPath, messagesBody, messagesPath, postJson } from './helpers.js';

const REJECTED = 'sk-expired-standby';
let mock: MockProvider;

beforeAll(async () => {
  mock = await startMockProvider({ rejectedKeys: [REJECTED] });
});
afterAll(async () => {
  await mock.close();
});

it('a request presenting a rejected key gets the dialect’s own credential error, whatever its directives', async () => {
  const openai = await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?chunks=2'), { headers: { authorization: `Bearer ${REJECTED}` } });
  expect(openai.status).toBe(401);
  expect(((await openai.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');

  const anthropic = await postJson(`${mock.url}${messagesPath}`, messagesBody('claude-mock'), { headers: { 'x-api-key': REJECTED } });
  expect(anthropic.status).toBe(401);
  expect(((await anthropic.json()) as { error: { type: string } }).error.type).toBe('authentication_error');

  const gemini = await postJson(`${mock.url}${geminiPath('gemini-mock')}`, geminiBody(), { headers: { 'x-goog-api-key': REJECTED } });
  expect(gemini.status).toBe(400);
  expect(JSON.stringify(await gemini.json())).toContain('API_KEY_INVALID');

  const bedrock = await postJson(`${mock.url}${bedrockPath('bedrock-mock')}`, bedrockBody(), { headers: { authorization: `Bearer ${REJECTED}` } });
  expect(bedrock.status).toBe(403);
  expect(bedrock.headers.get('x-amzn-errortype')).toMatch(/UnrecognizedClientException/);

  expect(mock.attempts.map((attempt) => attempt.outcome)).toEqual(['status 401', 'status 401', 'status 400', 'status 403']);
});

it('another key, or none, is served as always', async () => {
  const other = await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock'), { headers: { authorization: 'Bearer sk-good' } });
  expect(other.status).toBe(200);
  const none = await postJson(`${mock.url}${messagesPath}`, messagesBody('claude-mock'));
  expect(none.status).toBe(200);
});
