import type { CanaryRun } from '../canaries/canary-run.js';
import { callAdmin, errorMessage, type AdminClientOptions } from './admin-client.js';
import { formatTable } from './format-table.js';

export interface CanaryOptions extends AdminClientOptions {
  route?: string;
  json?: boolean;
}

/** A run sends every prompt (and its grading) one after another: it may take minutes. */
const RUN_TIMEOUT_MS = 15 * 60_000;

const score = (value: number | null) => (value === null ? '-' : value.toFixed(3));

function result(run: CanaryRun): string {
  if (run.dropped) return 'dropped';
  return run.baseline === null ? 'learning baseline' : 'ok';
}

/** Each target that answered, with how many prompts it served when not all; `failed` for prompts nothing answered. */
function servedSummary(run: CanaryRun): string {
  const counts = new Map<string, number>();
  for (const prompt of run.prompts) counts.set(prompt.served ?? 'failed', (counts.get(prompt.served ?? 'failed') ?? 0) + 1);
  if (counts.size === 1 && !counts.has('failed')) return [...counts.keys()][0]!;
  return [...counts].map(([served, count]) => `${served} ×${count}`).join(', ');
}

/**
 * Runs the quality canaries now, one route after another (each as `POST /admin/canaries` with its
 * route), telling progress on stderr, then prints a table (or the runs as JSON). Exit 1 when a
 * run dropped below its threshold or the gateway refused one.
 */
export async function runCanaryCommand(options: CanaryOptions): Promise<number> {
  const routes = options.route !== undefined ? [options.route] : await canaryRoutes(options);
  if (routes === undefined) return 1;
  if (routes.length === 0) {
    console.error('no canaries are configured (canaries.<route> in the config)');
    return 0;
  }
  const runs: CanaryRun[] = [];
  for (const route of routes) {
    console.error(`canary ${route}: running…`);
    const answer = await callAdmin('POST', '/admin/canaries', options, { route }, RUN_TIMEOUT_MS);
    if (!answer.ok) {
      console.error(answer.error);
      return 1;
    }
    const run = answer.status === 200 ? parseRuns(answer.text)?.[0] : undefined;
    if (!run) {
      console.error(`canary ${route}: the gateway answered ${answer.status}: ${refusal(answer.text)}`);
      return 1;
    }
    const failed = run.prompts.filter((prompt) => prompt.error !== undefined).length;
    console.error(`canary ${route}: ${result(run)}, score ${score(run.score)} over ${run.prompts.length} prompt(s)${failed > 0 ? `, ${failed} failed` : ''}`);
    runs.push(run);
  }
  if (options.json) {
    console.log(JSON.stringify({ data: runs }, null, 2));
  } else {
    console.log(
      formatTable(
        ['route', 'score', 'baseline', 'threshold', 'result', 'served'],
        runs.map((run) => [run.route, score(run.score), score(run.baseline), score(run.threshold), result(run), servedSummary(run)]),
      ),
    );
  }
  return runs.some((run) => run.dropped) ? 1 : 0;
}

/** The routes `GET /admin/canaries` lists; undefined after saying why there are none to read. */
async function canaryRoutes(options: AdminClientOptions): Promise<string[] | undefined> {
  const answer = await callAdmin('GET', '/admin/canaries', options);
  if (!answer.ok) {
    console.error(answer.error);
    return undefined;
  }
  try {
    const parsed = JSON.parse(answer.text) as { data?: { route?: unknown }[] };
    if (answer.status === 200 && Array.isArray(parsed.data)) return parsed.data.map((entry) => String(entry.route));
  } catch {
    // Falls through to the error below.
  }
  console.error(`the gateway answered ${answer.status}: ${errorMessage(answer.text)}`);
  return undefined;
}

/** A 409 names the run in progress; anything else says what the gateway said. */
function refusal(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { code?: string; run_id?: string } };
    if (parsed.error?.code === 'canary_running') return `a run is in progress (${parsed.error.run_id}); try again when it has finished`;
  } catch {
    // Not JSON: errorMessage shows the raw text.
  }
  return errorMessage(text);
}

function parseRuns(text: string): CanaryRun[] | undefined {
  try {
    const parsed = JSON.parse(text) as { data?: unknown };
    if (Array.isArray(parsed.data)) return parsed.data as CanaryRun[];
  } catch {
    // Falls through to undefined.
  }
  return undefined;
}
