import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { canaryDirectory, canaryRoutes, MOCK_REFERENCE, writePrompts } from '../canary-helpers.js';
import { ADMIN_TOKEN, eventually, settledOutcome } from '../scenario-helpers.js';

const directory = canaryDirectory();
const prompts = writePrompts(directory.path, 'slow.jsonl', [
  { question: 'one', reference: MOCK_REFERENCE },
  { question: 'two', reference: MOCK_REFERENCE },
]);
let gateway: TestGateway | undefined;

const config = `
store: { kind: sqlite, path: "${join(directory.path, 'store.db')}" }
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  slow: { targets: [{ connection: mock-openai, model: "gpt-slow?headers_delay_ms=20000" }] }
canaries:
  slow: { interval_s: 1, prompts: "${prompts}", baseline: auto }
`;

afterAll(async () => {
  await gateway?.close();
  directory.remove();
});

it('shutting down during a scheduled canary run aborts its request at once, and the cut-short run is neither kept nor learned from', async () => {
  gateway = await startGateway(config);
  const mock = gateway.mock;
  await eventually(() => mock.attemptsFor('gpt-slow').length === 1, 10_000, 'the scheduled run to send its first prompt');
  const closing = Date.now();
  await gateway.close();
  gateway = undefined;
  expect(Date.now() - closing).toBeLessThan(5_000);
  // What the provider saw: the first prompt abandoned, the second never sent.
  expect(await settledOutcome(mock.attemptsFor('gpt-slow')[0]!)).toBe('client_closed');
  expect(mock.attemptsFor('gpt-slow')).toHaveLength(1);

  gateway = await startGateway(config.replace('interval_s: 1', 'interval_s: 0'));
  expect((await canaryRoutes(gateway.url)).get('slow')).toMatchObject({ baseline: null, baseline_runs: 0, latest: [] });
  expect(gateway.mock.attempts).toEqual([]);
});
