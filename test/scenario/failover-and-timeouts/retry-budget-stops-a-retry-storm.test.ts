import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { hello, metricValue, metricsText } from '../scenario-helpers.js';

let gateway: TestGateway;

// One Anthropic-dialect target answering 529 to everything, retries: 3 and a tiny backoff, so
// without a retry budget 40 requests would make 40 × (1 + 3) = 160 upstream attempts. The default
// budget holds 10 retries and earns 5 a second, so how many retries it allows depends on how long
// the storm lasts, which a loaded machine stretches: the bound below is computed from that time.
const BUDGET_CAPACITY = 10;
const BUDGET_PER_SECOND = 5;
beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  storm:
    retries: 3
    backoff: { base_ms: 1, max_ms: 5 }
    targets: [{ connection: mock-anthropic, model: "overloaded-only?status=529" }]
`);
});
afterAll(() => gateway.close());

it('40 concurrent requests against a 529ing target retry only as far as the budget allows, far fewer than 160 attempts', async () => {
  const requests = 40;
  const startedAt = Date.now();
  const responses = await Promise.all(Array.from({ length: requests }, () => postChat(gateway.url, { model: 'storm', messages: hello })));
  const bodies = await Promise.all(
    responses.map(async (response) => ({ status: response.status, body: (await response.json()) as { error: { code: string; attempts: unknown[] } } })),
  );
  const stormSeconds = (Date.now() - startedAt) / 1000;

  expect(bodies.every(({ status, body }) => status === 502 && body.error.code === 'upstream_error')).toBe(true);
  const upstreamAttempts = gateway.mock.attemptsFor('overloaded-only').length;
  expect(upstreamAttempts).toBeGreaterThanOrEqual(requests);
  // The budget's whole allowance over the storm, however long the machine made it (about 40 at rest).
  expect(upstreamAttempts - requests).toBeLessThanOrEqual(Math.floor(BUDGET_CAPACITY + BUDGET_PER_SECOND * stormSeconds));
  // What the callers were told matches what the provider saw.
  expect(bodies.reduce((sum, { body }) => sum + body.error.attempts.length, 0)).toBe(upstreamAttempts);
  // Some requests still got their retry (the budget is not zero); how many did is the storm's length's to say.
  expect(bodies.some(({ body }) => body.error.attempts.length > 1)).toBe(true);

  const metrics = await metricsText(gateway.url);
  expect(metricValue(metrics, 'switchyard_retry_budget_exhausted_total')).toBeGreaterThan(0);
  expect(metricValue(metrics, 'switchyard_retry_budget_exhausted_total', { route: 'storm' })).toBeGreaterThan(0);
});
