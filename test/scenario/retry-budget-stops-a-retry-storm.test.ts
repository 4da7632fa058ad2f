import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { hello, metricValue, metricsText } from './scenario-helpers.js';

let gateway: TestGateway;

// One Anthropic-dialect target answering 529 to everything, retries: 3 and a tiny backoff, so
// without a retry budget 40 requests would make 40 × (1 + 3) = 160 upstream attempts.
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

it('40 concurrent requests against a 529ing target make far fewer than 160 attempts', async () => {
  const requests = 40;
  const responses = await Promise.all(Array.from({ length: requests }, () => postChat(gateway.url, { model: 'storm', messages: hello })));
  const bodies = await Promise.all(
    responses.map(async (response) => ({ status: response.status, body: (await response.json()) as { error: { code: string; attempts: unknown[] } } })),
  );

  expect(bodies.every(({ status, body }) => status === 502 && body.error.code === 'upstream_error')).toBe(true);
  const upstreamAttempts = gateway.mock.attemptsFor('overloaded-only').length;
  expect(upstreamAttempts).toBeGreaterThanOrEqual(requests);
  expect(upstreamAttempts).toBeLessThan(80);
  // What the callers were told matches what the provider saw.
  expect(bodies.reduce((sum, { body }) => sum + body.error.attempts.length, 0)).toBe(upstreamAttempts);
  // Some requests still got their retry (the budget is not zero), most did not.
  expect(bodies.some(({ body }) => body.error.attempts.length > 1)).toBe(true);
  expect(bodies.filter(({ body }) => body.error.attempts.length === 1).length).toBeGreaterThan(requests / 2);

  const metrics = await metricsText(gateway.url);
  expect(metricValue(metrics, 'switchyard_retry_budget_exhausted_total')).toBeGreaterThan(0);
  expect(metricValue(metrics, 'switchyard_retry_budget_exhausted_total', { route: 'storm' })).toBeGreaterThan(0);
});
