import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/core/request-record.js';
import { MIN_REQUESTS_FOR_SHARE } from '../../../src/health/fallback-share.js';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { canaryDirectory, MOCK_REFERENCE, runCanary, writePrompts } from '../canary-helpers.js';
import { ADMIN_TOKEN, hello, metricsText, metricValue } from '../scenario-helpers.js';

const directory = canaryDirectory();
let gateway: TestGateway;

beforeAll(async () => {
  const prompts = writePrompts(
    directory.path,
    'support.jsonl',
    Array.from({ length: MIN_REQUESTS_FOR_SHARE }, (_, index) => ({ question: `question ${index}`, reference: MOCK_REFERENCE })),
  );
  // The primary fails its first requests (the canary's), then serves (the callers').
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
  mock-anthropic: { provider: mock, dialect: anthropic }
routes:
  support:
    retries: 0
    health: { consecutive_failures: 100, min_requests: 1000 }
    targets:
      - { connection: mock-openai, model: "primary?status=503&times=${MIN_REQUESTS_FOR_SHARE}" }
      - { connection: mock-anthropic, model: standby }
canaries:
  support: { interval_s: 0, prompts: "${prompts}", baseline: 1, max_drop: 0.1 }
`);
});
afterAll(async () => {
  await gateway.close();
  directory.remove();
});

it("canary requests are records and request metrics with origin canary, served through the route's fallback, absent from ?origin=caller and counting nothing in the callers' fallback share", async () => {
  const run = await runCanary(gateway.url, 'support');
  // Scored as a caller would have been served: by the standby, after the primary's 503.
  expect(run).toMatchObject({ score: 1, dropped: false });
  expect(new Set(run.prompts.map((prompt) => prompt.served))).toEqual(new Set(['mock-anthropic/standby']));
  expect(gateway.mock.attemptsFor('primary').map((attempt) => attempt.outcome)).toEqual(Array(MIN_REQUESTS_FOR_SHARE).fill('status 503'));
  expect(gateway.mock.attemptsFor('standby')).toHaveLength(MIN_REQUESTS_FOR_SHARE);

  const callerIds: string[] = [];
  for (let index = 0; index < MIN_REQUESTS_FOR_SHARE; index++) {
    const caller = await postChat(gateway.url, { model: 'support', messages: hello });
    expect(caller.status).toBe(200);
    expect(caller.headers.get('x-switchyard-served-by')).toBe(`mock-openai/primary?status=503&times=${MIN_REQUESTS_FOR_SHARE}`);
    callerIds.push(caller.headers.get('x-request-id')!);
  }

  const listed = async (origin: string) => {
    const response = await fetch(`${gateway.url}/admin/requests?route=support&origin=${origin}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: RequestRecord[] }).data;
  };
  const canaryIds = run.prompts.map((prompt) => prompt.request_id);
  const canaryRecords = await listed('canary');
  expect(canaryRecords.map((record) => record.id)).toEqual([...canaryIds].reverse());
  expect(canaryRecords.every((record) => record.origin === 'canary' && record.attempts.map((attempt) => attempt.kind).join() === 'server_error,ok')).toBe(true);
  expect((await listed('caller')).map((record) => record.id)).toEqual([...callerIds].reverse());

  // Half the route's answers came from the standby, but every caller's came from the primary.
  await gateway.app.monitor.tick();
  const metrics = await metricsText(gateway.url);
  expect(metricValue(metrics, 'switchyard_fallback_share', { route: 'support' })).toBe(0);
  expect(metricValue(metrics, 'switchyard_requests_total', { route: 'support', origin: 'canary' })).toBe(MIN_REQUESTS_FOR_SHARE);
  expect(metricValue(metrics, 'switchyard_requests_total', { route: 'support', origin: 'caller' })).toBe(MIN_REQUESTS_FOR_SHARE);
});
