import { afterAll, beforeAll, expect, it } from 'vitest';
import { configChange } from '../../support/config-change.js';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { canaryDirectory, canaryRoutes, MOCK_REFERENCE, writePrompts } from '../canary-helpers.js';
import { ADMIN_TOKEN, eventually } from '../scenario-helpers.js';

const directory = canaryDirectory();
let gateway: TestGateway;
let prompts: string;

const configWith = (canaries: string) => `
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  removed: { targets: [{ connection: mock-openai, model: gpt-removed }] }
  added: { targets: [{ connection: mock-openai, model: gpt-added }] }
  retimed: { targets: [{ connection: mock-openai, model: gpt-retimed }] }
canaries:
${canaries}
`;

beforeAll(async () => {
  prompts = writePrompts(directory.path, 'prompts.jsonl', [{ question: 'q', reference: MOCK_REFERENCE }]);
  gateway = await startGateway(
    configWith(`  removed: { interval_s: 1, prompts: "${prompts}" }
  retimed: { interval_s: 1, prompts: "${prompts}" }`),
    { watch: true },
  );
});
afterAll(async () => {
  await gateway.close();
  directory.remove();
});

const runsOf = (model: string) => gateway.mock.attemptsFor(model).length;

it('canaries run on their interval_s, and a reload adds a schedule for a new canary, removes a dropped one’s and retimes a kept one’s', async () => {
  await eventually(() => runsOf('gpt-removed') >= 1 && runsOf('gpt-retimed') >= 1, 10_000, 'both scheduled canaries to run');
  expect((await canaryRoutes(gateway.url)).get('retimed')!.latest.length).toBeGreaterThanOrEqual(1);

  const reloaded = configChange(gateway.configSource, (change) => change.event === 'reloaded');
  gateway.writeConfig(
    configWith(`  added: { interval_s: 1, prompts: "${prompts}" }
  retimed: { interval_s: 0, prompts: "${prompts}" }`),
  );
  await reloaded;
  // A run already in flight at the reload may still reach the mock; none starts after it.
  await eventually(() => gateway.mock.attempts.every((attempt) => attempt.outcome !== undefined), 3_000, 'runs in flight to end');
  const removedRuns = runsOf('gpt-removed');
  const retimedRuns = runsOf('gpt-retimed');

  await eventually(() => runsOf('gpt-added') >= 2, 10_000, 'the added canary to run twice');
  expect(runsOf('gpt-removed')).toBe(removedRuns);
  expect(runsOf('gpt-retimed')).toBe(retimedRuns);
  expect([...(await canaryRoutes(gateway.url)).keys()]).toEqual(['added', 'retimed']);
});
