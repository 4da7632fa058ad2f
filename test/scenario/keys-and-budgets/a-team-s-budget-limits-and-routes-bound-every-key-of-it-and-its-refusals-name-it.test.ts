import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bothStoresForThisFile } from '../../support/both-stores.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { createTeam } from '../../support/admin-calls.js';
import { createKey, keysAuth } from '../../support/virtual-keys.js';

const ADMIN_TOKEN = 'team-gate-admin-token';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

// The mock counts 1 input token for 'x' and answers 8 output tokens: at $5,000 / $7,000 per
// million tokens one request costs $0.061 and, with max_tokens 8, reserves about $0.096. A $0.20
// budget holds two reservations, never three. The first token waits 300 ms: twenty sent at once
// are all in flight together.
const ROUTES = `
routes:
  priced:
    targets:
      - { connection: mock-openai, model: "gpt-team-priced?first_token_ms=300", price: { input_per_mtok: 5000, output_per_mtok: 7000 } }
  sonnet-priced: { targets: [{ connection: mock-openai, model: gpt-sonnet-priced, price: { input_per_mtok: 3, output_per_mtok: 15 } }] }
  limited: { targets: [{ connection: mock-openai, model: gpt-team-limited }] }
  search-docs: { targets: [{ connection: mock-openai, model: gpt-search-docs }] }
  search-web: { targets: [{ connection: mock-openai, model: gpt-search-web }] }
  support: { targets: [{ connection: mock-openai, model: gpt-support }] }
`;
const PRICED = { model: 'priced', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] };

interface Answer {
  status: number;
  headers: Headers;
  error?: { code: string; message: string };
}

describe.each(bothStoresForThisFile('team-gate'))('on the $name store', ({ skip, store }) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    if (skip) return;
    const storeLine = await store();
    gateway = await startGateway(`${storeLine}\n${keysAuth(ADMIN_TOKEN)}\n${MOCK_CONNECTIONS}${ROUTES}`);
  }, 60_000);
  afterAll(() => gateway?.close());

  /** A team and keys of it, made before any of them is used; each key's secret and id. */
  async function teamWithKeys(team: { name: string } & Record<string, unknown>, keys: Record<string, unknown>[]): Promise<{ id: string; auth: Record<string, string> }[]> {
    const teamId = await createTeam(gateway.url, team, ADMIN_TOKEN);
    const created = await Promise.all(keys.map((fields, index) => createKey(gateway.url, ADMIN_TOKEN, { name: `${team.name} ${index}`, team: teamId, ...fields })));
    return created.map(({ id, key }) => ({ id, auth: { authorization: `Bearer ${key}` } }));
  }

  async function ask(body: Record<string, unknown>, auth: Record<string, string>): Promise<Answer> {
    const response = await postChat(gateway.url, body, auth);
    const json = (await response.json()) as { error?: Answer['error'] };
    return { status: response.status, headers: response.headers, ...(json.error ? { error: json.error } : {}) };
  }

  async function spentUsd(keyId: string): Promise<number> {
    const response = await fetch(`${gateway.url}/admin/keys/${keyId}/spend`, { headers: admin });
    return ((await response.json()) as { usd: number }).usd;
  }

  it.skipIf(skip)("20 concurrent requests of two keys against their team's $0.20: at most two served, the team's spend within it, every refusal naming the team", async () => {
    // Each key's own budget is fifty times the team's.
    const keys = await teamWithKeys({ name: 'search', budget: { usd: 0.2, period: 'day' } }, [{ budget: { usd: 10, period: 'day' } }, { budget: { usd: 10, period: 'day' } }]);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => ask(PRICED, keys[index % 2]!.auth)));
    const served = answers.filter((answer) => answer.status === 200);
    expect(served.length).toBeGreaterThanOrEqual(1);
    expect(served.length).toBeLessThanOrEqual(2);
    for (const refused of answers.filter((answer) => answer.status !== 200)) {
      expect(refused.status).toBe(429);
      expect(refused.headers.get('x-should-retry')).toBe('false');
      expect(refused.error?.code).toBe('budget_exceeded');
      expect(refused.error?.message).toMatch(/of team "search"/);
    }
    expect(gateway.mock.attemptsFor('gpt-team-priced')).toHaveLength(served.length);
    const spent = (await spentUsd(keys[0]!.id)) + (await spentUsd(keys[1]!.id));
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(0.2);
  });

  it.skipIf(skip)("20 concurrent requests of a key whose own $0.20 is less than its team's: at most two served, its spend within it, the refusals its own", async () => {
    const [key] = await teamWithKeys({ name: 'ads', budget: { usd: 10, period: 'day' } }, [{ budget: { usd: 0.2, period: 'day' } }]);
    const attemptsBefore = gateway.mock.attemptsFor('gpt-team-priced').length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => ask(PRICED, key!.auth)));
    const served = answers.filter((answer) => answer.status === 200);
    expect(served.length).toBeGreaterThanOrEqual(1);
    expect(served.length).toBeLessThanOrEqual(2);
    for (const refused of answers.filter((answer) => answer.status !== 200)) {
      expect(refused.error?.code).toBe('budget_exceeded');
      expect(refused.error?.message).toMatch(/this key's daily budget \(\$0\.20\)/);
      expect(refused.error?.message).not.toMatch(/team/);
    }
    expect(gateway.mock.attemptsFor('gpt-team-priced').length - attemptsBefore).toBe(served.length);
    const spent = await spentUsd(key!.id);
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(0.2);
  });

  it.skipIf(skip)("a team's budget smaller than its key's lowers max_tokens to what the team's pays, said in the header", async () => {
    // $0.05 at $3 / $15 per million tokens pays a short prompt and about 3,330 output tokens.
    const [key] = await teamWithKeys({ name: 'agents', budget: { usd: 0.05, period: 'month' } }, [{ budget: { usd: 10, period: 'month' } }]);
    const answer = await ask({ model: 'sonnet-priced', max_tokens: 64_000, messages: [{ role: 'user', content: 'hi' }] }, key!.auth);
    expect(answer.status).toBe(200);
    const sent = Number(answer.headers.get('x-switchyard-max-tokens'));
    expect(sent * 15).toBeLessThanOrEqual(50_000);
    expect(sent).toBeGreaterThan(3_300);
  });

  it.skipIf(skip)("a team's rpm counts the requests of all its keys; its refusal names the team and says when to retry", async () => {
    const keys = await teamWithKeys({ name: 'support', limits: { rpm: 3 } }, [{ limits: { rpm: 10 } }, {}]);
    const statuses: number[] = [];
    let refused: Answer | undefined;
    for (let index = 0; index < 4; index++) {
      const answer = await ask({ model: 'limited', messages: [{ role: 'user', content: 'hi' }] }, keys[index % 2]!.auth);
      statuses.push(answer.status);
      if (answer.status !== 200) refused = answer;
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(refused?.error).toMatchObject({ code: 'rate_limit_exceeded', message: 'Rate limit reached for team "support": 3 requests per minute across its keys.' });
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(gateway.mock.attemptsFor('gpt-team-limited')).toHaveLength(3);
  });

  it.skipIf(skip)("a team's routes bound its keys': a route either refuses is a 403 naming which, and /v1/models lists what both allow", async () => {
    const [open, narrow] = await teamWithKeys({ name: 'search-team', routes: ['search-*'] }, [{}, { routes: ['search-docs', 'support'] }]);
    expect((await ask({ model: 'search-web', messages: [{ role: 'user', content: 'hi' }] }, open!.auth)).status).toBe(200);
    const byTeam = await ask({ model: 'support', messages: [{ role: 'user', content: 'hi' }] }, open!.auth);
    expect(byTeam.status).toBe(403);
    expect(byTeam.error).toMatchObject({ code: 'model_not_allowed', message: expect.stringContaining('team "search-team"') });

    expect((await ask({ model: 'search-docs', messages: [{ role: 'user', content: 'hi' }] }, narrow!.auth)).status).toBe(200);
    expect((await ask({ model: 'support', messages: [{ role: 'user', content: 'hi' }] }, narrow!.auth)).error?.message).toContain('team "search-team"');
    const byKey = await ask({ model: 'search-web', messages: [{ role: 'user', content: 'hi' }] }, narrow!.auth);
    expect(byKey.error).toMatchObject({ code: 'model_not_allowed', message: 'This API key is not allowed to use the model "search-web".' });
    expect(gateway.mock.attemptsFor('gpt-support')).toHaveLength(0);

    const models = async (auth: Record<string, string>) =>
      ((await (await fetch(`${gateway.url}/v1/models`, { headers: auth })).json()) as { data: { id: string }[] }).data.map(({ id }) => id).sort();
    expect(await models(open!.auth)).toEqual(['search-docs', 'search-web']);
    expect(await models(narrow!.auth)).toEqual(['search-docs']);
  });
});
