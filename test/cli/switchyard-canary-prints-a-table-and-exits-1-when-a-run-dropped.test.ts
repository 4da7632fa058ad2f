import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CanaryRun } from '../../src/canaries/canary-run.js';
import { canaryDirectory, MOCK_REFERENCE, writePrompts } from '../scenario/canary-helpers.js';
import { ADMIN_TOKEN } from '../scenario/scenario-helpers.js';
import { runCli } from '../support/cli-process.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';

const directory = canaryDirectory();
let gateway: TestGateway;

beforeAll(async () => {
  const prompts = writePrompts(directory.path, 'prompts.jsonl', [
    { question: 'one', reference: MOCK_REFERENCE },
    { question: 'two', reference: MOCK_REFERENCE },
  ]);
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  steady: { targets: [{ connection: mock-openai, model: gpt-steady }] }
  worse: { targets: [{ connection: mock-openai, model: "gpt-worse?degrade=0.5" }] }
canaries:
  steady: { interval_s: 0, prompts: "${prompts}", baseline: 1, max_drop: 0.1 }
  worse: { interval_s: 0, prompts: "${prompts}", baseline: 1, max_drop: 0.1 }
`);
});
afterAll(async () => {
  await gateway.close();
  directory.remove();
});

const canary = (...args: string[]) => runCli(['canary', '--url', gateway.url, '--token', ADMIN_TOKEN, ...args]);

it('switchyard canary runs every canary with progress, prints an aligned table and exits 1 when a run dropped', async () => {
  const { code, stdout, stderr } = await canary();
  expect(stderr).toContain('canary steady: running…');
  expect(stderr).toContain('canary worse: dropped, score 0.500 over 2 prompt(s)');
  expect(stdout.trimEnd().split('\n')).toEqual([
    'route   score  baseline  threshold  result   served',
    '------  -----  --------  ---------  -------  ---------------------------------',
    'steady  1.000  1.000     0.900      ok       mock-openai/gpt-steady',
    'worse   0.500  1.000     0.900      dropped  mock-openai/gpt-worse?degrade=0.5',
  ]);
  expect(code).toBe(1);
  expect(gateway.mock.attemptsFor('gpt-steady')).toHaveLength(2);
  expect(gateway.mock.attemptsFor('gpt-worse')).toHaveLength(2);
});

it('switchyard canary --route runs only that route, exits 0 when it held, and --json prints the runs', async () => {
  const { code, stdout } = await canary('--route', 'steady', '--json');
  expect(code).toBe(0);
  const { data } = JSON.parse(stdout) as { data: CanaryRun[] };
  expect(data.map((run) => [run.route, run.score, run.dropped])).toEqual([['steady', 1, false]]);
  expect(gateway.mock.attemptsFor('gpt-worse')).toHaveLength(2);
  const unknown = await canary('--route', 'nope');
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('canary nope: the gateway answered 404: Route "nope" has no canary (canaries: steady, worse).');
});
