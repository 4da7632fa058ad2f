import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { createKey, keysAuth } from '../../support/virtual-keys.js';

let gateway: TestGateway;
let anyRoute: string;

// `agents` claims every claude-* name; `sonnet` claims one exactly, so the exact alias wins
// over the earlier route's glob; `catch-all` comes last and takes what nothing else did —
// but not a `connection/model` name, which the direct form serves first.
beforeAll(async () => {
  gateway = await startGateway(`
${keysAuth(ADMIN_TOKEN)}
${MOCK_CONNECTIONS}
routes:
  agents:
    aliases: ["claude-*", "opus"]
    targets: [{ connection: mock-anthropic, model: claude-agents }]
  sonnet:
    aliases: ["claude-sonnet-5"]
    targets: [{ connection: mock-anthropic, model: claude-sonnet }]
  claude-fixed: { targets: [{ connection: mock-anthropic, model: claude-fixed }] }
  support: { targets: [{ connection: mock-openai, model: gpt-support }] }
  catch-all:
    aliases: ["*"]
    targets: [{ connection: mock-openai, model: gpt-anything }]
`);
  anyRoute = `Bearer ${(await createKey(gateway.url, ADMIN_TOKEN, { name: 'any-route' })).key}`;
});
afterAll(() => gateway.close());

async function servedBy(model: string, authorization = anyRoute): Promise<{ status: number; servedBy: string | null; id: string }> {
  const response = await postChat(gateway.url, { model, messages: hello }, { authorization });
  await response.arrayBuffer();
  return { status: response.status, servedBy: response.headers.get('x-switchyard-served-by'), id: response.headers.get('x-request-id')! };
}

describe('a model name resolves by route name, then exact alias, then the direct form, then alias globs in config order', () => {
  it.each([
    ['claude-fixed', 'mock-anthropic/claude-fixed', 'a route name, though an earlier glob matches it too'],
    ['claude-sonnet-5', 'mock-anthropic/claude-sonnet', 'an exact alias, though an earlier glob matches it too'],
    ['opus', 'mock-anthropic/claude-agents', 'an exact alias'],
    ['claude-opus-5-5', 'mock-anthropic/claude-agents', 'the first glob that matches'],
    ['mock-openai/gpt-direct', 'mock-openai/gpt-direct', 'the direct form, before the catch-all glob'],
    ['gpt-6.2-sol', 'mock-openai/gpt-anything', 'the catch-all glob'],
  ])('%s → %s (%s)', async (model, expected) => {
    const answer = await servedBy(model);
    expect(answer).toMatchObject({ status: 200, servedBy: expected });
  });

  it('the record keeps the route it resolved to and the name the caller sent', async () => {
    const answer = await servedBy('claude-haiku-4-5-20251001');
    const record = await fetchRecord(gateway.url, answer.id);
    expect(record).toMatchObject({ route: 'agents', model_requested: 'claude-haiku-4-5-20251001' });
  });
});

describe('key route globs authorize the route an alias resolves to, not the name sent', () => {
  it('a key for `agents` may send any claude-* name, and not a route it was not given', async () => {
    const agentsOnly = `Bearer ${(await createKey(gateway.url, ADMIN_TOKEN, { name: 'agents-only', routes: ['agents'] })).key}`;
    expect((await servedBy('claude-opus-5-5', agentsOnly)).status).toBe(200);
    const refused = await postChat(gateway.url, { model: 'claude-sonnet-5', messages: hello }, { authorization: agentsOnly });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('"sonnet"');
  });
});

describe('GET /v1/models lists routes and exact aliases; a name that resolves is a model', () => {
  it('lists route names then exact aliases, only those the key may use', async () => {
    const list = async (authorization: string) => {
      const response = await fetch(`${gateway.url}/v1/models`, { headers: { authorization } });
      return ((await response.json()) as { data: { id: string }[] }).data.map((model) => model.id);
    };
    expect(await list(anyRoute)).toEqual(['agents', 'sonnet', 'claude-fixed', 'support', 'catch-all', 'opus', 'claude-sonnet-5']);
    const agentsOnly = `Bearer ${(await createKey(gateway.url, ADMIN_TOKEN, { name: 'agents-list', routes: ['agents'] })).key}`;
    expect(await list(agentsOnly)).toEqual(['agents', 'opus']);
  });

  it('GET /v1/models/{id} answers a name a glob alias covers, as asked', async () => {
    const response = await fetch(`${gateway.url}/v1/models/claude-opus-5-5`, { headers: { authorization: anyRoute } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: 'claude-opus-5-5', object: 'model' });
  });
});

describe('an unknown model is a 404 that names the closest routes and GET /v1/models', () => {
  let strict: TestGateway;
  beforeAll(async () => {
    strict = await startGateway(`
${keysAuth(ADMIN_TOKEN)}
${MOCK_CONNECTIONS}
routes:
  support-drafts: { targets: [{ connection: mock-openai, model: gpt-drafts }] }
  support-replies: { targets: [{ connection: mock-openai, model: gpt-replies }] }
  billing: { targets: [{ connection: mock-openai, model: gpt-billing }] }
  secret-research: { targets: [{ connection: mock-openai, model: gpt-research }] }
`);
  });
  afterAll(() => strict.close());

  async function notFound(model: string, routes?: string[]): Promise<string> {
    const { key } = await createKey(strict.url, ADMIN_TOKEN, { name: `k-${Math.random().toString(36).slice(2)}`, ...(routes ? { routes } : {}) });
    const response = await postChat(strict.url, { model, messages: hello }, { authorization: `Bearer ${key}` });
    expect(response.status).toBe(404);
    const { error } = (await response.json()) as { error: { code: string; message: string; param: string } };
    expect(error).toMatchObject({ code: 'model_not_found', param: 'model' });
    expect(strict.mock.attemptsFor('gpt-drafts')).toHaveLength(0);
    return error.message;
  }

  it('nearest first, at most three, and where the whole list is', async () => {
    const message = await notFound('support-draft');
    expect(message).toBe(
      'The model `support-draft` does not exist or you do not have access to it. The closest routes: `support-drafts`, `support-replies`, `secret-research`. GET /v1/models lists the models you can use.',
    );
  });

  it('never a route the key may not use', async () => {
    const message = await notFound('secret-researc', ['support-*']);
    expect(message).not.toContain('secret-research');
    expect(message).toContain('The closest routes: `support-replies`, `support-drafts`.');
  });
});
