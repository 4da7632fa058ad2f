import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/core/request-record.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { createKey, keysAuth } from '../support/virtual-keys.js';

const ADMIN_TOKEN = 'budget-fit-admin-token';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
let gateway: TestGateway;

// At $3 / $15 per million tokens (micro-dollars per token), a $0.05 budget (50,000 micro-dollars)
// pays for a short prompt and about 3,330 output tokens: far from the 64,000 Claude Code asks for.
const SONNET_PRICE = '{ input_per_mtok: 3, output_per_mtok: 15 }';
beforeAll(async () => {
  gateway = await startGateway(`
${keysAuth(ADMIN_TOKEN)}
${MOCK_CONNECTIONS}
  mock-responses: { provider: mock, dialect: openai-responses }
routes:
  responses-priced: { targets: [{ connection: mock-responses, model: gpt-responses-priced, price: ${SONNET_PRICE} }] }
  chat-priced: { targets: [{ connection: mock-openai, model: gpt-priced, price: ${SONNET_PRICE} }] }
  messages-priced: { targets: [{ connection: mock-anthropic, model: claude-priced, price: ${SONNET_PRICE} }] }
  slow-priced: { targets: [{ connection: mock-openai, model: "gpt-slow?first_token_ms=300", price: ${SONNET_PRICE} }] }
  kept-whole:
    budget_fit: refuse
    targets: [{ connection: mock-openai, model: gpt-whole, price: ${SONNET_PRICE} }]
  overspent:
    targets: [{ connection: mock-openai, model: "gpt-overspent?chunks=20", price: { input_per_mtok: 5000, output_per_mtok: 7000 } }]
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const hi = [{ role: 'user', content: 'hi' }];

async function keyWithBudget(name: string, usd: number): Promise<{ id: string; auth: Record<string, string> }> {
  const { id, key } = await createKey(gateway.url, ADMIN_TOKEN, { name, budget: { usd, period: 'month' } });
  return { id, auth: { authorization: `Bearer ${key}` } };
}

async function recordOf(response: Response): Promise<RequestRecord> {
  const answer = await fetch(`${gateway.url}/admin/requests/${response.headers.get('x-request-id')}`, { headers: admin });
  return (await answer.json()) as RequestRecord;
}

async function spendOf(keyId: string): Promise<{ usd: number; reserved_usd: number; budget_usd: number }> {
  return (await (await fetch(`${gateway.url}/admin/keys/${keyId}/spend`, { headers: admin })).json()) as {
    usd: number;
    reserved_usd: number;
    budget_usd: number;
  };
}

/**
 * Sends `body` to `path` with a fresh $0.05 key; expects it served with its cap lowered to what that
 * pays, said in the header and the record. The cap it said, and the body the provider was sent.
 */
async function servedLowered(path: string, body: Record<string, unknown>, upstreamModel: string): Promise<{ sent: number; upstream: unknown }> {
  const { auth } = await keyWithBudget(`lowered ${path}`, 0.05);
  const response = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  const sent = Number(response.headers.get('x-switchyard-max-tokens'));
  expect(sent * 15).toBeLessThanOrEqual(50_000);
  expect(sent).toBeGreaterThan(3_300);
  expect((await recordOf(response)).max_tokens_clamped).toEqual({ requested: 64_000, sent });
  const [attempt] = gateway.mock.attemptsFor(upstreamModel);
  return { sent, upstream: attempt!.body };
}

describe('a $0.05 key asked for 64,000 output tokens', () => {
  it('is served through the OpenAI Chat endpoint with max_tokens lowered to what the budget pays, said in the header and the record', async () => {
    const { sent, upstream } = await servedLowered('/v1/chat/completions', { model: 'chat-priced', max_tokens: 64_000, messages: hi }, 'gpt-priced');
    const { max_completion_tokens: completionTokens, max_tokens: maxTokens } = upstream as { max_tokens?: number; max_completion_tokens?: number };
    expect(completionTokens ?? maxTokens).toBe(sent);
  });

  it('is served through the Anthropic Messages endpoint the same way, its thinking budget lowered below the new max_tokens', async () => {
    const body = { model: 'messages-priced', max_tokens: 64_000, thinking: { type: 'enabled', budget_tokens: 31_999 }, messages: hi };
    const { sent, upstream } = await servedLowered('/v1/messages', body, 'claude-priced');
    expect(upstream).toMatchObject({ max_tokens: sent, thinking: { type: 'enabled', budget_tokens: sent - 1 } });
  });

  it('is served through the Responses endpoint with max_output_tokens lowered in the body a Responses target is sent as it came', async () => {
    const body = { model: 'responses-priced', max_output_tokens: 64_000, input: 'hi', store: false };
    const { sent, upstream } = await servedLowered('/v1/responses', body, 'gpt-responses-priced');
    expect(upstream).toMatchObject({ max_output_tokens: sent });
  });

  it('without max_tokens the 4,096 a reservation assumes still fits a larger budget: nothing is lowered or said', async () => {
    const { auth } = await keyWithBudget('roomy', 1);
    const response = await postChat(gateway.url, { model: 'chat-priced', messages: hi }, auth);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-max-tokens')).toBeNull();
    expect((await recordOf(response)).max_tokens_clamped).toBeUndefined();
  });

  it('on a route with budget_fit: refuse is refused whole, the message saying how much is left and what the request needs', async () => {
    const { auth } = await keyWithBudget('kept-whole', 0.05);
    const response = await postChat(gateway.url, { model: 'kept-whole', max_tokens: 64_000, messages: hi }, auth);
    expect(response.status).toBe(429);
    expect(response.headers.get('x-should-retry')).toBe('false');
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('budget_exceeded');
    // 64,000 output tokens at $15 per million: $0.96 and a little input.
    expect(error.message).toMatch(/too large for what is left .*\$0\.05 left, and the request needs at least \$0\.96\d* \(its input and 64000 output tokens.*budget_fit: refuse/);
    expect(gateway.mock.attemptsFor('gpt-whole')).toHaveLength(0);
  });
});

describe('a key its budget refuses', () => {
  it('whose budget is spent is told so', async () => {
    // The provider answers 20 tokens where 8 were asked for: $0.145 billed against a $0.10 budget.
    const { id, auth } = await keyWithBudget('spent', 0.1);
    const request = { model: 'overspent', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] };
    expect((await postChat(gateway.url, request, auth)).status).toBe(200);
    expect((await spendOf(id)).usd).toBeGreaterThanOrEqual(0.1);
    const refused = await postChat(gateway.url, request, auth);
    expect(refused.status).toBe(429);
    const { error } = (await refused.json()) as { error: { code: string; message: string } };
    expect(error).toEqual(expect.objectContaining({ code: 'budget_exceeded', message: "The budget is spent: nothing is left of this key's monthly budget ($0.10) once requests in flight are counted." }));
    expect(gateway.mock.attemptsFor('gpt-overspent')).toHaveLength(1);
  });

  it('with a little left and a huge prompt is told the request is too large for what is left', async () => {
    const { auth } = await keyWithBudget('huge-prompt', 0.05);
    // About 20,000 tokens of input: $0.06 at $3 per million before any output.
    const prompt = 'hello world '.repeat(10_000);
    const response = await postChat(gateway.url, { model: 'chat-priced', max_tokens: 64_000, messages: [{ role: 'user', content: prompt }] }, auth);
    expect(response.status).toBe(429);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('budget_exceeded');
    expect(error.message).toMatch(/too large for what is left of this key's monthly budget \(\$0\.05\): \$0\.05 left, and the request needs at least \$0\.06\d* \(its input and 256 output tokens/);
    expect(gateway.mock.attemptsFor('gpt-priced')).toHaveLength(0);
  });
});

it('concurrent clamped requests never take more than the budget: what one reserves the others cannot, and the settled spend stays within it', async () => {
  const { id, auth } = await keyWithBudget('concurrent-clamped', 0.05);
  for (let round = 0; round < 2; round++) {
    const before = await spendOf(id);
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => postChat(gateway.url, { model: 'slow-priced', max_tokens: 64_000, messages: hi }, auth)),
    );
    const served = responses.filter((response) => response.status === 200);
    expect(served).toHaveLength(1);
    // The one served reserved all that was left: for the others nothing was.
    const refused = responses.filter((response) => response.status === 429);
    expect(refused).toHaveLength(4);
    for (const response of refused) expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/^The budget is spent/);
    const sent = Number(served[0]!.headers.get('x-switchyard-max-tokens'));
    expect(sent * 15).toBeLessThanOrEqual(Math.round((before.budget_usd - before.usd) * 1_000_000));
    const after = await spendOf(id);
    expect(after.reserved_usd).toBe(0);
    expect(after.usd).toBeGreaterThan(before.usd);
    expect(after.usd).toBeLessThanOrEqual(after.budget_usd);
  }
  expect(gateway.mock.attemptsFor('gpt-slow')).toHaveLength(2);
});
