import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';
import { hello, metricValue, metricsText } from '../scenario-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  plain:
    targets: [{ connection: mock-openai, model: metrics-plain }]
  overloaded-primary:
    retries: 0
    targets:
      - { connection: mock-openai, model: "metrics-503?status=503" }
      - { connection: mock-anthropic, model: metrics-standby }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

it('x-stainless-retry-count > 0 counts a caller retry layered on top of the gateway', async () => {
  const before = (await metricsText(gateway.url)).trim();
  const beforeValue = metricValue(before, 'switchyard_caller_retries_total', { route: 'plain' }) ?? 0;

  const first = await postChat(gateway.url, { model: 'plain', messages: hello }, { 'x-stainless-retry-count': '0' });
  expect(first.status).toBe(200);
  await first.text();
  expect(metricValue(await metricsText(gateway.url), 'switchyard_caller_retries_total', { route: 'plain' }) ?? 0).toBe(beforeValue);

  const retried = await postChat(gateway.url, { model: 'plain', messages: hello }, { 'x-stainless-retry-count': '2' });
  expect(retried.status).toBe(200);
  await retried.text();
  expect(metricValue(await metricsText(gateway.url), 'switchyard_caller_retries_total', { route: 'plain' })).toBeGreaterThan(beforeValue);
  expect(gateway.mock.attemptsFor('metrics-plain')).toHaveLength(2);
});

it('the official SDK sends x-stainless-retry-count itself; a first try (0) is not a caller retry', async () => {
  const client = openAiClient(gateway.url);
  const beforeValue = metricValue(await metricsText(gateway.url), 'switchyard_caller_retries_total', { route: 'plain' }) ?? 0;
  await client.chat.completions.create({ model: 'plain', messages: hello });
  expect(gateway.mock.attemptsFor('metrics-plain')).toHaveLength(1);
  expect(metricValue(await metricsText(gateway.url), 'switchyard_caller_retries_total', { route: 'plain' }) ?? 0).toBe(beforeValue);
});

it('a 503 then failover shows up in requests, attempts by kind, latency histograms and failovers', async () => {
  const response = await postChat(gateway.url, { model: 'overloaded-primary', messages: hello });
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-attempts')).toBe('2');
  await response.text();
  expect(gateway.mock.attemptsFor('metrics-503')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('metrics-standby')).toHaveLength(1);

  const text = await metricsText(gateway.url);
  expect(metricValue(text, 'switchyard_requests_total')).toBeGreaterThanOrEqual(1);
  expect(metricValue(text, 'switchyard_requests_total', { route: 'overloaded-primary' })).toBe(1);
  expect(metricValue(text, 'switchyard_attempts_total', { kind: 'server_error' })).toBeGreaterThanOrEqual(1);
  expect(metricValue(text, 'switchyard_attempts_total', { kind: 'ok' })).toBeGreaterThanOrEqual(1);
  // Histograms: present, and this request observed in each.
  expect(metricValue(text, 'switchyard_attempts_per_request_count')).toBeGreaterThanOrEqual(1);
  expect(metricValue(text, 'switchyard_attempts_per_request_bucket', { le: '1' })).toBeLessThan(metricValue(text, 'switchyard_attempts_per_request_count')!);
  expect(metricValue(text, 'switchyard_added_latency_seconds_count')).toBeGreaterThanOrEqual(1);
  expect(metricValue(text, 'switchyard_first_token_seconds_count')).toBeGreaterThanOrEqual(1);
  // One observation per dispatched attempt.
  expect(metricValue(text, 'switchyard_deadline_remaining_seconds_count')).toBeGreaterThanOrEqual(2);
  expect(metricValue(text, 'switchyard_failovers_total', { from: 'mock-openai/metrics-503?status=503', to: 'mock-anthropic/metrics-standby' })).toBe(1);
});

it('the spec-named metric families are all exposed', async () => {
  const text = await metricsText(gateway.url);
  for (const name of [
    'switchyard_requests_total',
    'switchyard_attempts_total',
    'switchyard_attempts_per_request',
    'switchyard_added_latency_seconds',
    'switchyard_first_token_seconds',
    'switchyard_deadline_remaining_seconds',
    'switchyard_failovers_total',
    'switchyard_retry_budget_exhausted_total',
    'switchyard_stream_interrupted_total',
    'switchyard_caller_retries_total',
  ]) {
    expect(text, name).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
  }
});
