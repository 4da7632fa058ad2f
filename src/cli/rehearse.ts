import { startScenarioGateway } from '../app.js';
import { FAULT_NAMES, isFaultName, type FaultName } from '../rehearsal/faults.js';
import type { JudgedScenario } from '../rehearsal/judge-scenario.js';
import { rehearsalJson } from '../rehearsal/rehearsal-json.js';
import { runRehearsal, type Rehearsal } from '../rehearsal/run-rehearsal.js';
import { formatTable } from './format-table.js';
import { loadConfigFile } from './load-config-file.js';

export interface RehearseOptions {
  config: string;
  route?: string;
  fault?: string;
  json?: boolean;
  /** Seconds. */
  maxWait: number;
}

/** Exit codes: 0 every verdict passed, 1 a verdict failed, 2 the rehearsal could not run. */
const EXIT_FINDINGS = 1;
const EXIT_NOT_RUN = 2;

/**
 * `switchyard rehearse`: plays the config's routes against every fault of the catalogue, every
 * target served by the mock (docs/rehearse.md), with a progress line on stderr; prints a table
 * per route and the advice for each failing verdict (or `--json`). Returns the exit code.
 */
export async function runRehearse(options: RehearseOptions): Promise<number> {
  const source = loadConfigFile(options.config);
  if (!source) return EXIT_NOT_RUN;
  const faults = listOption(options.fault);
  const unknown = faults?.filter((fault) => !isFaultName(fault)) ?? [];
  if (unknown.length > 0) {
    console.error(`unknown fault ${unknown.join(', ')} (faults: ${FAULT_NAMES.join(', ')})`);
    return EXIT_NOT_RUN;
  }
  let rehearsal: Rehearsal;
  try {
    rehearsal = await runRehearsal(source.current, {
      ...(options.route === undefined ? {} : { routes: listOption(options.route)! }),
      ...(faults === undefined ? {} : { faults: faults as FaultName[] }),
      maxWaitMs: options.maxWait * 1000,
      onProgress: (done, total) => process.stderr.write(`\rrehearsing: ${done} of ${total} scenarios${done === total ? '\n' : ''}`),
    }, startScenarioGateway);
  } catch (error) {
    console.error((error as Error).message);
    return EXIT_NOT_RUN;
  }
  console.log(options.json ? JSON.stringify(rehearsalJson(rehearsal, options.maxWait), null, 2) : report(rehearsal));
  return rehearsal.failed > 0 ? EXIT_FINDINGS : 0;
}

function listOption(text: string | undefined): string[] | undefined {
  return text?.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/** A table per route (faults × target positions, each cell the verdict and the caller's time), its advice, and the summary line. */
function report(rehearsal: Rehearsal): string {
  const routes = [...new Set(rehearsal.scenarios.map((scenario) => scenario.scenario.route))];
  const sections = routes.map((route) => {
    const scenarios = rehearsal.scenarios.filter((scenario) => scenario.scenario.route === route);
    const positions = [...new Map(scenarios.map((scenario) => [scenario.scenario.position, `${scenario.scenario.position + 1}. ${scenario.scenario.connection}/${scenario.scenario.model}`]))];
    const faults = [...new Set(scenarios.map((scenario) => scenario.scenario.fault))];
    const rows = faults.map((fault) => [fault, ...positions.map(([position]) => cell(scenarios.find((scenario) => scenario.scenario.fault === fault && scenario.scenario.position === position)!))]);
    return [`route ${route}`, formatTable(['fault', ...positions.map(([, name]) => name)], rows), ...adviceLines(scenarios)].join('\n');
  });
  const passed = rehearsal.scenarios.length - rehearsal.failed;
  return [...sections, `${rehearsal.scenarios.length} scenarios in ${(rehearsal.durationMs / 1000).toFixed(1)} s: ${passed} passed, ${rehearsal.failed} failed`].join('\n\n');
}

function cell(scenario: JudgedScenario): string {
  const slowest = Math.max(...scenario.calls.map((call) => call.endMs));
  const failed = scenario.verdicts.filter((verdict) => !verdict.pass).map((verdict) => verdict.goal);
  return `${scenario.pass ? 'pass' : 'FAIL'} ${(slowest / 1000).toFixed(1)}s${failed.length > 0 ? ` (${failed.join(', ')})` : ''}`;
}

/** One line per distinct piece of advice, naming the scenarios it is for. */
function adviceLines(scenarios: readonly JudgedScenario[]): string[] {
  const byAdvice = new Map<string, string[]>();
  for (const scenario of scenarios) {
    for (const verdict of scenario.verdicts) {
      if (verdict.pass || verdict.advice === undefined) continue;
      byAdvice.set(verdict.advice, [...(byAdvice.get(verdict.advice) ?? []), `${scenario.scenario.fault}@${scenario.scenario.position + 1}`]);
    }
  }
  return [...byAdvice].map(([advice, where]) => `  advice: ${advice} (${[...new Set(where)].join(', ')})`);
}
