import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord } from '../scenario/scenario-helpers.js';
import { drill } from './drill-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
drills: { interval_s: 0 }
${MOCK_CONNECTIONS}
routes:
  three-deep:
    targets:
      - { connection: mock-openai, model: primary-chain }
      - { connection: mock-anthropic, model: second-chain }
      - { connection: mock-gemini, model: third-chain }
`);
});
afterAll(async () => {
  await gateway.close();
});

it('the chain walk reaches the third target with the first two failed inside the gateway, and the primary sees only its own step', async () => {
  const run = await drill(gateway.url, 'three-deep');
  expect(run.finished_at).not.toBeNull();
  expect(run.steps.map(({ step, position, connection, model, result }) => ({ step, position, connection, model, result }))).toEqual([
    { step: 'target', position: 1, connection: 'mock-openai', model: 'primary-chain', result: 'ok' },
    { step: 'target', position: 2, connection: 'mock-anthropic', model: 'second-chain', result: 'ok' },
    { step: 'target', position: 3, connection: 'mock-gemini', model: 'third-chain', result: 'ok' },
    { step: 'chain', position: 2, connection: 'mock-anthropic', model: 'second-chain', result: 'ok' },
    { step: 'chain', position: 3, connection: 'mock-gemini', model: 'third-chain', result: 'ok' },
  ]);

  // What the providers saw: the primary only its own step, each later target its own step and its chain step.
  expect(gateway.mock.attemptsFor('primary-chain')).toHaveLength(1);
  expect(gateway.mock.attemptsFor('second-chain')).toHaveLength(2);
  expect(gateway.mock.attemptsFor('third-chain')).toHaveLength(2);
  // Minimal requests: one output token.
  expect(gateway.mock.attemptsFor('primary-chain')[0]!.body).toMatchObject({ max_completion_tokens: 1 });
  expect(gateway.mock.attemptsFor('second-chain')[0]!.body).toMatchObject({ max_tokens: 1 });

  const lastChainStep = run.steps.at(-1)!;
  const record = await fetchRecord(gateway.url, lastChainStep.request_id!);
  expect(record).toMatchObject({ origin: 'drill', status: 'ok', served: { connection: 'mock-gemini', model: 'third-chain' } });
  expect(record.attempts.map(({ connection, kind, error_type, latency_ms }) => ({ connection, kind, error_type, latency_ms }))).toEqual([
    { connection: 'mock-openai', kind: 'server_error', error_type: 'forced_failure', latency_ms: 0 },
    { connection: 'mock-anthropic', kind: 'server_error', error_type: 'forced_failure', latency_ms: 0 },
    { connection: 'mock-gemini', kind: 'ok', error_type: null, latency_ms: expect.any(Number) as unknown },
  ]);
});
