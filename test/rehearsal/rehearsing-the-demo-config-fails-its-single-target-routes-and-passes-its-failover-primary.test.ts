import { expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';

const REHEARSAL_TIMEOUT_MS = 180_000;
const FAULTS = ['server_error', 'credential', 'cut', 'model_gone'];

interface Judged {
  route: string;
  position: number;
  fault: string;
  pass: boolean;
  verdicts: { goal: string; pass: boolean; advice?: string }[];
}

it(
  'rehearses examples/demo.yaml (its real-provider routes left out without their keys): every single-target route fails with the advice to add a fallback, the failover route passes while its standby is well, and it exits 1',
  async () => {
    const run = await runCli(['rehearse', '--config', 'examples/demo.yaml', '--fault', FAULTS.join(','), '--json'], { timeoutMs: REHEARSAL_TIMEOUT_MS });
    expect(run.code, run.stderr).toBe(1);
    const { scenarios } = JSON.parse(run.stdout) as { scenarios: Judged[] };
    const routes = [...new Set(scenarios.map((scenario) => scenario.route))];
    expect(routes).toEqual(['demo', 'demo-claude', 'demo-gemini', 'demo-bedrock', 'demo-embeddings', 'demo-failover', 'demo-agent-claude', 'demo-agent-codex']);
    expect(scenarios).toHaveLength(9 * FAULTS.length);
    for (const scenario of scenarios.filter((candidate) => candidate.route !== 'demo-failover')) {
      expect(scenario.pass, `${scenario.route} ${scenario.fault}`).toBe(false);
      expect(scenario.verdicts[0], `${scenario.route} ${scenario.fault}`).toMatchObject({ goal: 'answered', pass: false, advice: 'add a fallback target, on another connection' });
    }
    // Its primary always answers 503 and the standby, on another provider, serves: any fault of the primary is unseen.
    for (const scenario of scenarios.filter((candidate) => candidate.route === 'demo-failover' && candidate.position === 0)) {
      expect(scenario.pass, scenario.fault).toBe(true);
    }
    // With the standby faulted nothing is left: the rehearsal shows the demo's broken primary.
    for (const scenario of scenarios.filter((candidate) => candidate.route === 'demo-failover' && candidate.position === 1)) {
      expect(scenario.verdicts[0], scenario.fault).toMatchObject({ goal: 'answered', pass: false });
    }
  },
  REHEARSAL_TIMEOUT_MS + 10_000,
);
