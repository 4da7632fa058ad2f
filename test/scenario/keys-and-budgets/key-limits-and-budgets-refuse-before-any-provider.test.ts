import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { createKey, keysAuth } from '../../support/virtual-keys.js';

const ADMIN_TOKEN = 'limits-admin-token';
let gateway: TestGateway;

// The mock counts 1 input token for 'x' and answers 8 output tokens: at $5,000 / $7,000 per
// million tokens one request really costs 0.005 + 0.056 = $0.061. With max_tokens 8 it reserves
// its input estimate (~8 tokens, $0.04) plus 8 output tokens ($0.056) ≈ $0.096.
beforeAll(async () => {
  gateway = await startGateway(`
${keysAuth(ADMIN_TOKEN)}
${MOCK_CONNECTIONS}
routes:
  limited: { targets: [{ connection: mock-openai, model: gpt-limited }] }
  priced:
    targets:
      - { connection: mock-openai, model: gpt-priced, price: { input_per_mtok: 5000, output_per_mtok: 7000 } }
  priced-capped:
    max_output_tokens: 8
    targets:
      - { connection: mock-openai, model: gpt-capped, price: { input_per_mtok: 5000, output_per_mtok: 7000 } }
  priced-slow:
    targets:
      - { connection: mock-openai, model: "gpt-slow?first_token_ms=300", price: { input_per_mtok: 5000, output_per_mtok: 7000 } }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

const hi = [{ role: 'user', content: 'hi' }];

describe('per-key limits', () => {
  it('rpm 3: the fourth request in the minute gets 429 with retry-after, and the provider saw three', async () => {
    const { key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'rpm-3', limits: { rpm: 3 } });
    const auth = { authorization: `Bearer ${key}` };
    for (let index = 0; index < 3; index++) expect((await postChat(gateway.url, { model: 'limited', messages: hi }, auth)).status).toBe(200);
    const refused = await postChat(gateway.url, { model: 'limited', messages: hi }, auth);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
    expect(gateway.mock.attemptsFor('gpt-limited')).toHaveLength(3);
  });
});

describe('budgets', () => {
  const request = (model: string) => ({ model, max_tokens: 8, messages: [{ role: 'user', content: 'x' }] });

  it('a $0.10 budget where one request costs $0.061: the second is refused with budget_exceeded before any provider call', async () => {
    const { id, key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'small-budget', budget: { usd: 0.1, period: 'month' } });
    const auth = { authorization: `Bearer ${key}` };
    const first = await postChat(gateway.url, request('priced'), auth);
    expect(first.status).toBe(200);
    const second = await postChat(gateway.url, request('priced'), auth);
    expect(second.status).toBe(429);
    expect(second.headers.get('x-should-retry')).toBe('false');
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe('budget_exceeded');
    expect(gateway.mock.attemptsFor('gpt-priced')).toHaveLength(1);
    const spend = (await (await fetch(`${gateway.url}/admin/keys/${id}/spend`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as {
      usd: number;
      reserved_usd: number;
    };
    expect(spend.usd).toBeCloseTo(0.061, 6);
    expect(spend.reserved_usd).toBe(0);
  });

  it("without max_tokens the reservation uses the route's max_output_tokens", async () => {
    const { key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'capped-budget', budget: { usd: 0.1, period: 'month' } });
    const auth = { authorization: `Bearer ${key}` };
    const uncapped = { model: 'priced-capped', messages: [{ role: 'user', content: 'x' }] };
    expect((await postChat(gateway.url, uncapped, auth)).status).toBe(200);
    expect((await postChat(gateway.url, uncapped, auth)).status).toBe(429);
    expect(gateway.mock.attemptsFor('gpt-capped')).toHaveLength(1);
  });

  it('ten concurrent requests against a budget that fits one and a half: only what fits is admitted, spend never above the budget', async () => {
    const { id, key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'concurrent-budget', budget: { usd: 0.144, period: 'day' } });
    const auth = { authorization: `Bearer ${key}` };
    const responses = await Promise.all(Array.from({ length: 10 }, () => postChat(gateway.url, request('priced-slow'), auth)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 429)).toHaveLength(9);
    expect(gateway.mock.attemptsFor('gpt-slow')).toHaveLength(1);
    const spend = (await (await fetch(`${gateway.url}/admin/keys/${id}/spend`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as {
      usd: number;
      budget_usd: number;
    };
    expect(spend.usd).toBeLessThanOrEqual(spend.budget_usd);
    expect(spend.usd).toBeCloseTo(0.061, 6);
  });
});
