import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordUsage, RequestRecord } from '../../../src/core/request-record.js';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { createKey, keysAuth } from '../../support/virtual-keys.js';
import { ADMIN_TOKEN, fetchRecord } from '../scenario-helpers.js';

// An agent's conversation: a long system prompt and a question, then the same again with the
// answer and a second question. The mock keeps a provider's prompt cache (docs/mock.md, "Prompt
// cache"), so the second turn reads the first turn's prompt from it — on every wire, as that
// provider reports it — and the record and the ledger bill those tokens at the cache prices.
const PRICE = { input: 3, output: 15, read: 0.3, write: 3.75 };
const price = `{ input_per_mtok: ${PRICE.input}, output_per_mtok: ${PRICE.output}, cache_read_per_mtok: ${PRICE.read}, cache_write_per_mtok: ${PRICE.write} }`;
/** About 1,350 tokens as the mock counts them (4 characters each): more than the 1,024 a provider caches at least. */
const SYSTEM = 'You answer questions about the weather, briefly. '.repeat(110);
const marker = { type: 'ephemeral' };

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${keysAuth(ADMIN_TOKEN)}
${MOCK_CONNECTIONS}  mock-responses: { provider: mock, dialect: openai-responses }
routes:
  openai-chat: { targets: [{ connection: mock-openai, model: gpt-cached, price: ${price} }] }
  openai-responses: { targets: [{ connection: mock-responses, model: gpt-responses-cached, price: ${price} }] }
  gemini: { targets: [{ connection: mock-gemini, model: gemini-cached, price: ${price} }] }
  anthropic: { targets: [{ connection: mock-anthropic, model: claude-cached, price: ${price} }] }
  bedrock: { targets: [{ connection: mock-bedrock, model: "anthropic.claude-sonnet-4-5-20250929-v1:0", price: ${price} }] }
`);
});
afterAll(() => gateway?.close());

/** USD per million tokens is micro-dollars per token; `input_tokens` holds the cached ones too. */
function expectedMicros(usage: RecordUsage): number {
  const read = usage.cache_read_tokens ?? 0;
  const write = usage.cache_write_tokens ?? 0;
  return (usage.input_tokens - read - write) * PRICE.input + read * PRICE.read + write * PRICE.write + usage.output_tokens * PRICE.output;
}

/** A turn as an agent on the Chat Completions API sends it, with Anthropic's markers on content parts (left out for targets that cache by themselves). */
async function turn(route: string, auth: Record<string, string>, history: unknown[]): Promise<RequestRecord> {
  const response = await postChat(gateway.url, { model: route, messages: [{ role: 'system', content: [{ type: 'text', text: SYSTEM, cache_control: marker }] }, ...history] }, auth);
  expect(response.status).toBe(200);
  await response.json();
  return fetchRecord(gateway.url, response.headers.get('x-request-id')!);
}

describe.each([
  ['openai-chat', 'OpenAI reports reads only'],
  ['openai-responses', 'OpenAI reports reads only'],
  ['gemini', 'Gemini reports reads only'],
  ['anthropic', 'writes too'],
  ['bedrock', 'writes too'],
])('on the %s wire (%s)', (route, reports) => {
  it('the second turn reads the first turn\'s prompt from the cache, and costs that at the cache price in the record and the ledger', async () => {
    const { id, key } = await createKey(gateway.url, ADMIN_TOKEN, { name: `cache-${route}`, budget: { usd: 10, period: 'month' } });
    const auth = { authorization: `Bearer ${key}` };
    const first = await turn(route, auth, [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?', cache_control: marker }] }]);
    const second = await turn(route, auth, [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      { role: 'assistant', content: mockAnswerText(8) },
      { role: 'user', content: [{ type: 'text', text: 'And tomorrow?', cache_control: marker }] },
    ]);

    const systemTokens = Math.floor(SYSTEM.length / 4);
    expect(first.usage!.cache_read_tokens ?? 0).toBe(0);
    if (reports === 'writes too') expect(first.usage!.cache_write_tokens).toBeGreaterThanOrEqual(systemTokens);
    else expect(first.usage!.cache_write_tokens ?? 0).toBe(0);
    expect(second.usage!.cache_read_tokens).toBeGreaterThanOrEqual(systemTokens);
    expect(second.usage!.cache_read_tokens).toBeLessThan(second.usage!.input_tokens);
    if (reports === 'writes too') {
      // The marker is on the last block: all the rest was written, but for the token the rounding of 4 characters each leaves.
      const unmarked = second.usage!.input_tokens - second.usage!.cache_read_tokens! - second.usage!.cache_write_tokens!;
      expect(unmarked).toBeGreaterThanOrEqual(0);
      expect(unmarked).toBeLessThanOrEqual(1);
    }

    for (const record of [first, second]) expect(Math.round(record.cost_usd! * 1e6)).toBe(Math.round(expectedMicros(record.usage!)));
    // Cheaper than the same tokens at the input price, and than the first turn with fewer of them.
    expect(second.cost_usd!).toBeLessThan((second.usage!.input_tokens * PRICE.input + second.usage!.output_tokens * PRICE.output) / 1e6);
    expect(second.cost_usd!).toBeLessThan(first.cost_usd!);
    const spend = (await (await fetch(`${gateway.url}/admin/keys/${id}/spend`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { usd: number };
    expect(Math.round(spend.usd * 1e6)).toBe(Math.round(first.cost_usd! * 1e6) + Math.round(second.cost_usd! * 1e6));
  });
});
