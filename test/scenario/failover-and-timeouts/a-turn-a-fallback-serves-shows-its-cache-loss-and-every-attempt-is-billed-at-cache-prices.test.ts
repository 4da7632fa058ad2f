import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RecordUsage } from '../../../src/core/request-record.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { createKey, keysAuth } from '../../support/virtual-keys.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

/** Claude Sonnet 4.5's list price: cache reads 0.1× input, 5-minute writes 1.25×; 1-hour writes 2× ($6). */
const PRICE = '{ input_per_mtok: 3, output_per_mtok: 15, cache_read_per_mtok: 0.3, cache_write_per_mtok: 3.75 }';
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${keysAuth(ADMIN_TOKEN)}
${MOCK_CONNECTIONS}
routes:
  warm:
    targets: [{ connection: mock-anthropic, model: "claude-warm?cached=400", price: ${PRICE} }]
  session:
    retries: 0
    targets:
      - { connection: mock-anthropic, model: "claude-primary?status=529", price: ${PRICE} }
      - { connection: mock-anthropic, model: "claude-standby?cache_write=400&cache_ttl=1h", price: ${PRICE} }
`);
});
afterAll(() => gateway.close());

/** USD per million tokens is micro-dollars per token. */
function expectedMicros(usage: RecordUsage, hourWrite: boolean): number {
  const read = usage.cache_read_tokens ?? 0;
  const write = usage.cache_write_tokens ?? 0;
  return (usage.input_tokens - read - write) * 3 + read * 0.3 + write * (hourWrite ? 6 : 3.75) + usage.output_tokens * 15;
}

it("a turn served from the primary's cache costs cache reads; one a fallback serves shows reads 0 and the writes it paid for, at the 1-hour price", async () => {
  const { id: keyId, key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'agent', budget: { usd: 10, period: 'month' } });
  const auth = { authorization: `Bearer ${key}` };

  const warm = await postChat(gateway.url, { model: 'warm', messages: hello }, auth);
  expect(warm.status).toBe(200);
  const warmRecord = await fetchRecord(gateway.url, warm.headers.get('x-request-id')!);
  expect(warmRecord.usage).toMatchObject({ cache_read_tokens: 400, cache_write_tokens: 0 });
  expect(Math.round(warmRecord.cost_usd! * 1e6)).toBe(Math.round(expectedMicros(warmRecord.usage!, false)));

  const failedOver = await postChat(gateway.url, { model: 'session', messages: hello }, auth);
  expect(failedOver.status).toBe(200);
  const record = await fetchRecord(gateway.url, failedOver.headers.get('x-request-id')!);
  const [primary, standby] = record.attempts;
  expect(primary).toMatchObject({ kind: 'server_error', usage: null, cost_usd: null });
  expect(standby!.usage).toMatchObject({ cache_read_tokens: 0, cache_write_tokens: 400, cache_write_1h_tokens: 400 });
  expect(Math.round(standby!.cost_usd! * 1e6)).toBe(Math.round(expectedMicros(standby!.usage!, true)));
  expect(record.usage).toEqual(standby!.usage);
  expect(record.cost_usd).toBe(standby!.cost_usd);

  // The key is charged the same figures the ledger holds.
  const spend = (await (await fetch(`${gateway.url}/admin/keys/${keyId}/spend`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { usd: number };
  expect(Math.round(spend.usd * 1e6)).toBe(Math.round(warmRecord.cost_usd! * 1e6) + Math.round(record.cost_usd! * 1e6));
});
