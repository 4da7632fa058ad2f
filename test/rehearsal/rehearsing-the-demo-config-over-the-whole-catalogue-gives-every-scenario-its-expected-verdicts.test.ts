import { expect, it } from 'vitest';
import type { RehearsalDocument, RehearsalScenarioView } from '../../src/rehearsal/rehearsal-document.js';
import { FAULT_NAMES, FAULTS } from '../../src/rehearsal/faults.js';
import { runCli } from '../support/cli-process.js';

const REHEARSAL_TIMEOUT_MS = 240_000;

/**
 * The goals a target's fault fails when nothing else can answer for it: a silent target leaves
 * the caller unanswered past the first-byte goal (waiting out the cold first-token timeout); one
 * slow to its first token answers, late; every other fault leaves the caller unanswered, told
 * so at once (a flapping target: its callers while it is down).
 */
function failedAlone(fault: string): string[] {
  if (fault === 'silent') return ['answered', 'first_byte'];
  if (fault === 'slow_first_token') return ['first_byte'];
  return ['answered'];
}

function failing(scenario: RehearsalScenarioView): string[] {
  return scenario.verdicts.filter((verdict) => !verdict.pass).map((verdict) => verdict.goal);
}

it(
  'rehearses examples/demo.yaml over the whole catalogue (its real-provider routes left out without their keys): each scenario gets its expected verdicts and advice, and it exits 1',
  async () => {
    const run = await runCli(['rehearse', '--config', 'examples/demo.yaml', '--json'], { timeoutMs: REHEARSAL_TIMEOUT_MS });
    expect(run.code, run.stderr).toBe(1);
    const document = JSON.parse(run.stdout) as RehearsalDocument;
    const routes = [...new Set(document.scenarios.map((scenario) => scenario.route))];
    expect(routes).toEqual(['demo', 'demo-claude', 'demo-gemini', 'demo-bedrock', 'demo-embeddings', 'demo-failover', 'demo-agent-claude', 'demo-agent-codex']);
    // An embedding route is asked to embed, and a fault only a stream can have is not played on it.
    const embeddingFaults = FAULT_NAMES.filter((fault) => !FAULTS[fault].streamOnly);
    expect(embeddingFaults).toHaveLength(12);
    expect(document.scenarios).toHaveLength(8 * FAULT_NAMES.length + embeddingFaults.length);
    expect(document.scenarios.filter((scenario) => scenario.route === 'demo-embeddings').map((scenario) => [scenario.fault, scenario.request])).toEqual(embeddingFaults.map((fault) => [fault, 'embeddings']));
    expect(document.failed).toBe(document.scenarios.filter((scenario) => !scenario.pass).length);

    for (const scenario of document.scenarios) {
      const where = `${scenario.route}@${scenario.position + 1} ${scenario.fault}`;
      const answered = scenario.verdicts.find((verdict) => verdict.goal === 'answered')!;
      if (scenario.route === 'demo-failover' && scenario.position === 0) {
        // Its primary always answers 503 and the standby, on another provider, serves: any fault of the primary is unseen.
        expect(failing(scenario), where).toEqual([]);
        // (A flapping primary's window lifts its own 503 with the fault's: once up, it serves the later callers.)
        expect(scenario.calls[0]!.served_by, where).toBe('mock-anthropic/claude-standby');
        continue;
      }
      expect(failing(scenario), where).toEqual(failedAlone(scenario.fault));
      if (!answered.pass) {
        // With the standby faulted nothing is left: the rehearsal shows the demo's broken primary.
        expect(answered.advice, where).toBe(scenario.route === 'demo-failover' ? 'no other target answered in its place: check them, or add one on another connection' : 'add a fallback target, on another connection');
      }
      // Never billed twice, never a broken stream passed off as whole, a flapping primary served again once up.
      for (const goal of ['charged_once', 'honest']) expect(scenario.verdicts.find((verdict) => verdict.goal === goal), `${where} ${goal}`).toMatchObject({ pass: true });
      if (scenario.fault === 'flapping' && scenario.position === 0) expect(scenario.verdicts.find((verdict) => verdict.goal === 'back_in_service'), where).toMatchObject({ pass: true });
    }
  },
  REHEARSAL_TIMEOUT_MS + 10_000,
);
