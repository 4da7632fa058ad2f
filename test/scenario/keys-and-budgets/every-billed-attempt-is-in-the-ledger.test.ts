import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { createKey, keysAuth } from '../../support/virtual-keys.js';

const ADMIN_TOKEN = 'ledger-admin-token';
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${keysAuth(ADMIN_TOKEN)}
${MOCK_CONNECTIONS}
routes:
  recovered:
    retries: 0
    commit: complete
    targets:
      - { connection: mock-openai, model: "billed-primary?cut_after=3", price: { input_per_mtok: 1000, output_per_mtok: 2000 } }
      - { connection: mock-anthropic, model: billed-standby, price: { input_per_mtok: 500, output_per_mtok: 4000 } }
`);
});
afterAll(() => gateway.close());

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

interface AttemptEntry {
  n: number;
  kind: string;
  cost_usd: number | null;
  usage: { input_tokens: number; output_tokens: number; estimated?: boolean } | null;
}

it('a request that recovered after a billed, interrupted attempt has two costed attempts summing to its cost, and the key is charged that', async () => {
  const { id: keyId, key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'ledger-key', budget: { usd: 100, period: 'month' } });

  const response = await postChat(gateway.url, { model: 'recovered', stream: true, messages: [{ role: 'user', content: 'Tell me something.' }] }, { authorization: `Bearer ${key}` });
  expect(response.status).toBe(200);
  const body = await response.text();
  expect(body).not.toContain('"error"');
  expect(response.headers.get('x-switchyard-served-by')).toBe('mock-anthropic/billed-standby');

  const record = (await (await fetch(`${gateway.url}/admin/requests/${response.headers.get('x-request-id')}`, { headers: admin })).json()) as {
    cost_usd: number;
    attempts: AttemptEntry[];
  };
  const [first, second] = record.attempts;
  // The cut attempt generated 3 chunks before it died: billed, from the gateway's own count.
  expect(first!.usage!.estimated).toBe(true);
  expect(first!.usage!.output_tokens).toBeGreaterThan(0);
  expect(first!.cost_usd).toBeGreaterThan(0);
  expect(second!.usage!.estimated).toBeUndefined();
  expect(second!.cost_usd).toBeGreaterThan(0);
  // Exact arithmetic in micro-dollars: the request's cost is the sum of its attempts'.
  expect(Math.round(record.cost_usd * 1e6)).toBe(Math.round(first!.cost_usd! * 1e6) + Math.round(second!.cost_usd! * 1e6));
  expect(second!.cost_usd).toBeCloseTo((second!.usage!.input_tokens * 500 + second!.usage!.output_tokens * 4000) / 1e6, 6);

  const spend = (await (await fetch(`${gateway.url}/admin/keys/${keyId}/spend`, { headers: admin })).json()) as { usd: number; budget_usd: number };
  expect(spend.usd).toBeCloseTo(record.cost_usd, 6);
  expect(spend.budget_usd).toBe(100);

  const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
  expect(metrics).toMatch(/switchyard_spend_usd_total\{route="recovered",target="mock-openai\/billed-primary\?cut_after=3",key="ledger-key"\} [0-9.e-]+/);
});
