import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DrillRun } from '../../src/drills/drill-run.js';
import { runCli, startCli } from '../support/cli-process.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../support/start-gateway.js';
import { ADMIN_TOKEN } from '../scenario/scenario-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
drills: { interval_s: 0 }
${MOCK_CONNECTIONS}
routes:
  quick-then-slow:
    targets:
      - { connection: mock-openai, model: quick-cli }
      - { connection: mock-anthropic, model: "slow-cli?first_token_ms=1500" }
`);
});
afterAll(async () => {
  await gateway.close();
});

it('prints each finished step on stderr while the drill runs, then the table; exit 0 when every step passed', async () => {
  const cli = startCli(['drill', '--url', gateway.url, '--token', ADMIN_TOKEN]);
  const exited = new Promise<number | null>((resolve) => cli.child.once('close', resolve));
  try {
    await cli.waitFor(/quick-then-slow target 1 mock-openai\/quick-cli: ok/);
    // The slow target (1.5 s, twice: alone and in the chain) has not answered yet: no table so far.
    expect(cli.output()).not.toMatch(/^route\s+step/m);
    await cli.waitFor(/^quick-then-slow\s+chain\s+2\s+mock-anthropic\/slow-cli\?first_token_ms=1500\s+ok\s+\d+ ms$/m);
    expect(await exited).toBe(0);
  } finally {
    await cli.stop();
  }
});

it('--json prints the run; a bad option or an unknown route is exit 2', async () => {
  const json = await runCli(['drill', '--url', gateway.url, '--token', ADMIN_TOKEN, '--route', 'quick-then-slow', '--json']);
  expect(json.code).toBe(0);
  const run = JSON.parse(json.stdout) as DrillRun;
  expect(run.steps.map((step) => `${step.step} ${step.position} ${step.result}`)).toEqual(['target 1 ok', 'target 2 ok', 'chain 2 ok']);

  const unknown = await runCli(['drill', '--url', gateway.url, '--token', ADMIN_TOKEN, '--route', 'no-such-route']);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain("No route named 'no-such-route'");
  expect((await runCli(['drill', '--bogus'])).code).toBe(2);
});
