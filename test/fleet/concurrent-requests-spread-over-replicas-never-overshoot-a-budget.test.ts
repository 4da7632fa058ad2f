import { expect, it } from 'vitest';
import { eventually } from '../scenario/scenario-helpers.js';
import { queryPostgres } from '../scenario/postgres-helpers.js';
import { chat, createFleetKey, fleetForThisFile, mockConnectionYaml } from './fleet-helpers.js';

// The mock counts 1 input token for 'x' and answers 8 output tokens: at $5,000 / $7,000 per
// million tokens one request costs $0.061 and, with max_tokens 8, reserves about $0.096. A $0.20
// budget holds two reservations, never three.
const fleet = fleetForThisFile({
  replicas: 3,
  yaml: (mockUrl) => `${mockConnectionYaml(mockUrl)}
routes:
  r:
    targets:
      - { connection: mock, model: "gpt-budget?first_token_ms=300", price: { input_per_mtok: 5000, output_per_mtok: 7000 } }`,
});

it.skipIf(!fleet.available)('ten concurrent requests over three replicas against a budget of two requests admit at most two, and the spend stays within the budget', async () => {
  const replicas = fleet.fleet().replicas;
  const { id, key } = await createFleetKey(replicas[0]!.url, { name: 'two-requests', budget: { usd: 0.2, period: 'day' } });
  const answers = await Promise.all(
    Array.from({ length: 10 }, (_, index) => chat(replicas[index % replicas.length]!.url, key, { max_tokens: 8, messages: [{ role: 'user', content: 'x' }] })),
  );
  const admitted = answers.filter((answer) => answer.status === 200);
  const refused = answers.filter((answer) => answer.status !== 200);
  expect(admitted.length).toBeGreaterThanOrEqual(1);
  expect(admitted.length).toBeLessThanOrEqual(2);
  for (const answer of refused) {
    expect(answer.status).toBe(429);
    expect(answer.body.error?.code).toBe('budget_exceeded');
  }
  // The provider generated once per admitted request, fleet-wide.
  expect(fleet.mock().attemptsFor('gpt-budget')).toHaveLength(admitted.length);

  // Every replica writes its spend rows in the background: read them once all have landed.
  let rows: { request_id: string; cost_micros: string }[] = [];
  await eventually(
    async () => {
      rows = await queryPostgres(fleet.databaseUrl(), 'SELECT request_id, cost_micros FROM spend WHERE key_id = $1', [id]);
      return rows.length >= admitted.length;
    },
    5_000,
    'the spend rows of the admitted requests',
  );
  expect(rows).toHaveLength(admitted.length);
  const spentMicros = rows.reduce((sum, row) => sum + Number(row.cost_micros), 0);
  expect(spentMicros).toBeGreaterThan(0);
  expect(spentMicros).toBeLessThanOrEqual(200_000);
}, 60_000);
