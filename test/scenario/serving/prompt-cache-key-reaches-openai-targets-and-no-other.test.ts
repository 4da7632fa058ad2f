import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockProvider, type MockProvider } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { hello } from '../scenario-helpers.js';

// An OpenAI connection on a mock of its own, failing, in front of the gateway's generic OpenAI-wire and Responses mocks.
let openai: MockProvider;
let gateway: TestGateway;

beforeAll(async () => {
  openai = await startMockProvider();
  gateway = await startGateway(`
${MOCK_CONNECTIONS}  mock-responses: { provider: mock, dialect: openai-responses }
  openai-direct: { provider: openai, api_key: sk-test, base_url: "${openai.url}/v1" }
routes:
  chat:
    retries: 0
    # The failing primary is tried on every turn here: never ejected, and no session keeps to the standby.
    health: { consecutive_failures: 100 }
    affinity: off
    targets:
      - { connection: openai-direct, model: "gpt-primary?status=503" }
      - { connection: mock-openai, model: gpt-standby }
  responses:
    retries: 0
    health: { consecutive_failures: 100 }
    affinity: off
    targets:
      - { connection: openai-direct, model: "gpt-primary?status=503" }
      - { connection: mock-responses, model: gpt-standby }
`);
});
afterAll(async () => {
  await gateway.close();
  await openai.close();
});
beforeEach(() => {
  openai.reset();
  gateway.mock.reset();
});

function keysSent(): [unknown, unknown] {
  const [primary] = openai.attemptsFor('gpt-primary');
  const [standby] = gateway.mock.attemptsFor('gpt-standby');
  return [(primary!.body as { prompt_cache_key?: unknown }).prompt_cache_key, (standby!.body as { prompt_cache_key?: unknown }).prompt_cache_key];
}

describe('a prompt_cache_key', () => {
  it('from a Chat caller goes to OpenAI, and not to the generic OpenAI-wire host it fails over to', async () => {
    const response = await postChat(gateway.url, { model: 'chat', messages: hello, prompt_cache_key: 'session-7' });
    expect(response.status).toBe(200);
    expect(keysSent()).toEqual(['session-7', undefined]);
  });

  it("from a Responses caller goes to OpenAI's Responses API, and not to the mock's", async () => {
    const response = await fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'responses', input: 'hi', prompt_cache_key: 'session-7' }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(response.status).toBe(200);
    expect(openai.attemptsFor('gpt-primary')[0]!.path).toBe('/v1/responses');
    expect(keysSent()).toEqual(['session-7', undefined]);
  });

  it("is the caller's session when it sent none: a Claude Code turn keys OpenAI's cache by its session id", async () => {
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-claude-code-session-id': '2a8241a4-7198-4b6c-a010-2cb31c6d1cc6' },
      body: JSON.stringify({ model: 'chat', max_tokens: 64, messages: hello }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(response.status).toBe(200);
    expect(keysSent()).toEqual(['2a8241a4-7198-4b6c-a010-2cb31c6d1cc6', undefined]);
  });

  it('longer than the 64 characters OpenAI takes goes as a digest of itself, the same every turn', async () => {
    const long = `session-${'x'.repeat(80)}`;
    await (await postChat(gateway.url, { model: 'chat', messages: hello, prompt_cache_key: long })).text();
    const [first] = keysSent();
    expect(first).toMatch(/^pck_[0-9a-f]{60}$/);
    openai.reset();
    gateway.mock.reset();
    await (await postChat(gateway.url, { model: 'chat', messages: hello, prompt_cache_key: long })).text();
    expect(keysSent()[0]).toBe(first);
  });
});
