import { startScenarioGateway } from '../app.js';
import { FAULT_NAMES, isFaultName, type FaultName } from '../rehearsal/faults.js';
import type { RehearsalDocument, RehearsalScenarioView } from '../rehearsal/rehearsal-document.js';
import { cellFigures, routeGrids } from '../rehearsal/rehearsal-grid.js';
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
  const document = rehearsalJson(rehearsal, options.maxWait);
  console.log(options.json ? JSON.stringify(document, null, 2) : report(document));
  return rehearsal.failed > 0 ? EXIT_FINDINGS : 0;
}

function listOption(text: string | undefined): string[] | undefined {
  return text?.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/** A table per route (faults × target positions, each cell the verdict and the caller's time), its advice, and the summary line. */
function report(document: RehearsalDocument): string {
  const sections = routeGrids(document).map((grid) =>
    [
      `route ${grid.route}`,
      formatTable(['fault', ...grid.targets], grid.rows.map((row) => [row.fault, ...row.cells.map((scenario) => (scenario ? cell(scenario) : '—'))])),
      ...grid.advice.map(({ advice, where }) => `  advice: ${advice} (${where.join(', ')})`),
    ].join('\n'),
  );
  const passed = document.scenarios_total - document.failed;
  return [...sections, `${document.scenarios_total} scenarios in ${(document.duration_ms / 1000).toFixed(1)} s: ${passed} passed, ${document.failed} failed`].join('\n\n');
}

function cell(scenario: RehearsalScenarioView): string {
  const { seconds, failedGoals } = cellFigures(scenario);
  return `${scenario.pass ? 'pass' : 'FAIL'} ${seconds}s${failedGoals.length > 0 ? ` (${failedGoals.join(', ')})` : ''}`;
}
