import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { createKey, keysAuth } from '../../support/virtual-keys.js';

const ADMIN_TOKEN = 'admin-token-for-tests';
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${keysAuth(ADMIN_TOKEN)}
${MOCK_CONNECTIONS}
routes:
  support: { targets: [{ connection: mock-openai, model: gpt-support }] }
  research: { targets: [{ connection: mock-anthropic, model: claude-research }] }
`);
});
afterAll(() => gateway.close());

const hello = [{ role: 'user', content: 'hi' }];

describe('virtual keys', () => {
  it('no key or a forged key → 401 invalid_api_key, and no provider is contacted', async () => {
    const before = gateway.mock.attempts.length;
    const attemptsWith: Record<string, string>[] = [{}, { authorization: 'Bearer sk-sy-forgedforgedforgedforgedforgedforgedforge' }, { 'x-api-key': 'nonsense' }];
    for (const headers of attemptsWith) {
      const response = await postChat(gateway.url, { model: 'support', messages: hello }, headers);
      expect(response.status).toBe(401);
      const body = (await response.json()) as { error: { code: string } };
      expect(body.error.code).toBe('invalid_api_key');
    }
    expect(gateway.mock.attempts.length).toBe(before);
  });

  it('the official SDK with a valid key is served; a key scoped to one route gets 403 on another', async () => {
    const { key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'support-team', routes: ['supp*'] });
    expect(key).toMatch(/^sk-sy-/);
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]!.message.content).toBeTruthy();
    const refused = await client.chat.completions.create({ model: 'research', messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((refused as InstanceType<typeof OpenAI.PermissionDeniedError>).code).toBe('model_not_allowed');
    expect(gateway.mock.attemptsFor('claude-research')).toHaveLength(0);
  });

  it('/v1/models needs a key and lists only the routes it may use', async () => {
    expect((await fetch(`${gateway.url}/v1/models`)).status).toBe(401);
    const { key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'models-lister', routes: ['research'] });
    const listed = (await (await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { id: string }[] };
    expect(listed.data.map((model) => model.id)).toEqual(['research']);
  });

  it('GET /admin/keys never shows a secret', async () => {
    const { key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'listed' });
    const text = await (await fetch(`${gateway.url}/admin/keys`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
    expect(text).toContain('listed');
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(12));
  });

  it('revocation is effective on the very next request', async () => {
    const { id, key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'to-revoke' });
    const auth = { authorization: `Bearer ${key}` };
    expect((await postChat(gateway.url, { model: 'support', messages: hello }, auth)).status).toBe(200);
    const revoked = await fetch(`${gateway.url}/admin/keys/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(revoked.status).toBe(200);
    const response = await postChat(gateway.url, { model: 'support', messages: hello }, auth);
    expect(response.status).toBe(401);
  });

  it('the record names the key that asked', async () => {
    const { key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'recorded-key' });
    const response = await postChat(gateway.url, { model: 'support', messages: hello }, { authorization: `Bearer ${key}` });
    const id = response.headers.get('x-request-id')!;
    const record = (await (await fetch(`${gateway.url}/admin/requests/${id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as {
      key_name: string;
    };
    expect(record.key_name).toBe('recorded-key');
  });
});
