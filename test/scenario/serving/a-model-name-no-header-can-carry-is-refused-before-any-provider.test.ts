import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
  mock-anthropic: { provider: mock, dialect: anthropic }
routes:
  chat: { targets: [{ connection: mock-openai, model: gpt-mock }] }
  odd-upstream-name: { targets: [{ connection: mock-openai, model: "mod€l" }] }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

async function postMessages(body: unknown): Promise<Response> {
  return fetch(`${gateway.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

describe('model names are printable ASCII of at most 256 bytes', () => {
  const refused = [
    ['a euro sign', 'mock-openai/gpt-€'],
    ['a control character', 'mock-openai/gpt\u0007mock'],
    ['a newline', 'chat\r\nx-injected: 1'],
    ['20 KB', `mock-openai/${'m'.repeat(20_000)}`],
    ['257 bytes', `mock-openai/${'m'.repeat(257 - 'mock-openai/'.length)}`],
  ] as const;
  for (const [what, model] of refused) {
    it(`${what}: 400 naming model, in both dialects, and no provider is asked or billed`, async () => {
      const chat = await postChat(gateway.url, { model, messages: hello });
      expect(chat.status).toBe(400);
      const chatBody = (await chat.json()) as { error: { param: string; code: string; message: string } };
      expect(chatBody.error).toMatchObject({ param: 'model', code: 'invalid_request_error' });
      expect(chatBody.error.message.length).toBeLessThan(300);

      const messages = await postMessages({ model, max_tokens: 5, messages: hello });
      expect(messages.status).toBe(400);
      expect(((await messages.json()) as { error: { message: string } }).error.message).toContain('model');

      expect(gateway.mock.attempts).toEqual([]);
      const record = await fetchRecord(gateway.url, chat.headers.get('x-request-id')!);
      expect(record.attempts).toEqual([]);
    });
  }

  it('a 256-byte name is taken', async () => {
    const model = `mock-openai/${'m'.repeat(256 - 'mock-openai/'.length)}`;
    const response = await postChat(gateway.url, { model, messages: hello });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-served-by')).toBe(model);
  });
});

it('an upstream model name from the config that a header cannot carry is answered, its served-by header encoded', async () => {
  const response = await postChat(gateway.url, { model: 'odd-upstream-name', messages: hello });
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-openai/mod%E2%82%ACl');
  expect(((await response.json()) as { choices: unknown[] }).choices).toHaveLength(1);
  expect(gateway.mock.attemptsFor('mod€l')).toHaveLength(1);
});
