import { stepFailed, type DrillRun, type DrillStep } from '../drills/drill-run.js';
import { callAdmin, errorMessage, type AdminClientOptions } from './admin-client.js';
import { formatTable } from './format-table.js';
import { milliseconds } from './requests-show.js';

export interface DrillOptions extends AdminClientOptions {
  route?: string;
  json?: boolean;
}

/** Exit codes: 0 every step passed (or was skipped for load), 1 a step failed, 2 the drill could not be run. */
const EXIT_FINDINGS = 1;
const EXIT_NOT_RUN = 2;

/** How often the progress lines are refreshed while the drill runs. */
const PROGRESS_POLL_MS = 500;
/** A drill runs one minimal request at a time; this bounds even a large config with slow targets. */
const DRILL_TIMEOUT_MS = 60 * 60 * 1000;

/**
 * `switchyard drill`: runs the fallback drill on a running gateway (`POST /admin/drills`),
 * printing each finished step on stderr as it goes (from `GET /admin/drills`), then the run as
 * an aligned table (or `--json`). Returns the exit code.
 */
export async function runDrill(options: DrillOptions): Promise<number> {
  const before = await latestRun(options);
  if (!before.ok) {
    console.error(before.error);
    return EXIT_NOT_RUN;
  }
  const posted = callAdmin('POST', '/admin/drills', options, options.route === undefined ? undefined : { route: options.route }, DRILL_TIMEOUT_MS);
  const printed = new Set<string>();
  let answered = false;
  const progress = (async () => {
    while (!answered) {
      await new Promise((resolve) => setTimeout(resolve, PROGRESS_POLL_MS));
      const latest = await latestRun(options);
      if (answered || !latest.ok || !latest.run || latest.run.id === before.run?.id) continue;
      printProgress(latest.run, printed);
    }
  })();
  const answer = await posted;
  answered = true;
  await progress;

  if (!answer.ok) {
    console.error(answer.error);
    return EXIT_NOT_RUN;
  }
  if (answer.status !== 200) {
    console.error(`the gateway answered ${answer.status}: ${errorMessage(answer.text)}`);
    return EXIT_NOT_RUN;
  }
  const run = parseRun(answer.text);
  if (!run) {
    console.error(`the gateway's answer is not a drill run: ${answer.text.slice(0, 200)}`);
    return EXIT_NOT_RUN;
  }
  printProgress(run, printed);
  if (options.json) console.log(JSON.stringify(run, null, 2));
  else console.log(run.steps.length === 0 ? 'no route to drill (drills.routes matches none)' : drillTable(run.steps));
  return run.steps.some(stepFailed) ? EXIT_FINDINGS : 0;
}

/** The table the command prints: one line per step. */
function drillTable(steps: readonly DrillStep[]): string {
  return formatTable(
    ['route', 'step', 'position', 'target', 'result', 'latency', 'message'],
    steps.map((step) => [
      step.route,
      step.step,
      String(step.position),
      `${step.connection}/${step.model}`,
      step.result,
      milliseconds(step.latency_ms),
      step.message ?? '',
    ]),
  );
}

/** One stderr line per step not printed yet. */
function printProgress(run: DrillRun, printed: Set<string>): void {
  run.steps.forEach((step, index) => {
    const key = `${run.id} ${index}`;
    if (printed.has(key)) return;
    printed.add(key);
    process.stderr.write(`${step.route} ${step.step} ${step.position} ${step.connection}/${step.model}: ${step.result} (${milliseconds(step.latency_ms)})\n`);
  });
}

async function latestRun(options: AdminClientOptions): Promise<{ ok: true; run: DrillRun | undefined } | { ok: false; error: string }> {
  const answer = await callAdmin('GET', '/admin/drills', options);
  if (!answer.ok) return answer;
  if (answer.status === 404) return { ok: true, run: undefined };
  if (answer.status !== 200) return { ok: false, error: `the gateway answered ${answer.status}: ${errorMessage(answer.text)}` };
  return { ok: true, run: parseRun(answer.text) };
}

function parseRun(text: string): DrillRun | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<DrillRun> | null;
    if (typeof parsed?.id === 'string' && Array.isArray(parsed.steps)) return parsed as DrillRun;
  } catch {
    // Falls through to "not a run".
  }
  return undefined;
}
