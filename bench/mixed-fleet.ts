/**
 * `npm run bench:mixed`: what learned first-token timeouts do to a mixed fleet after some traffic
 * (issue 39). One connection's fast model (`gpt-4.1-mini`) is warmed with 40 streamed answers; then
 * routes that put another deployment first, each with the warm one as its fallback, get `--requests`
 * streamed requests each, one after another (as one caller would): a slower healthy model on the
 * same connection and on another one (first token after 2.5 s), one silent from the start, one
 * failing with 503s for its first 4 s (flapping; its requests 300 ms apart), and one answering long
 * prompts (40k tokens) after 4 s. The config names only connections and targets. Per deployment it prints the share of
 * its route's requests it served, its first-token cuts, the requests that found it ejected, and its
 * state at the end; per route the callers' p50 / p99 until the whole answer.
 *
 * Each build runs as `switchyard serve` from its own `dist/` against a mock in this process:
 * the working tree's, and with `--baseline REF` (or `--baseline-dir DIR`) the older build's too,
 * one after the other, so the two can be read side by side.
 *
 *   npm run bench:mixed -- [--baseline REF | --baseline-dir DIR] [--requests 30] [--json FILE]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startMockProvider, type MockProvider } from '../src/mock/mock-provider.js';
import { buildBaseline, existingBaseline, type BaselineBuild } from './baseline-build.js';
import { boundedNumber } from './bounded-number.js';
import { cleanUpAll } from './cleanup.js';
import { LatencyRecorder } from './latency-recorder.js';
import { startServeProcess } from './serve-process.js';

const ADMIN_TOKEN = 'bench-admin-token';
const WARM_ANSWERS = 40;
const FALLBACK = 'a/gpt-4.1-mini';
/** About 40 000 input tokens by the gateway's estimate (a quarter of the characters). */
const LONG_PROMPT = 'word '.repeat(32_000);

interface Route {
  name: string;
  /** The deployment tried first, `connection/model`. */
  first: string;
  long?: boolean;
  /** Requests are sent this far apart (from the start of one to the next) rather than back to back. */
  everyMs?: number;
}

const ROUTES: Route[] = [
  { name: 'slow-same-connection', first: 'a/gpt-4.1?first_token_ms=2500' },
  { name: 'slow-other-connection', first: 'b/claude-slow?first_token_ms=2500' },
  { name: 'silent', first: 'a/gpt-silent?silence' },
  // Paced, so its 4 s outage ends while the route is still asked: readmission shows.
  { name: 'flapping', first: 'a/gpt-flap?status=503&flap_down_s=4', everyMs: 300 },
  { name: 'long-prompts', first: 'a/gpt-long?first_token_ms=4000', long: true },
];

interface DeploymentFigures {
  route: string;
  deployment: string;
  requests: number;
  served: number;
  cuts: number;
  foundEjected: number;
  state: string;
  p50Ms: number;
  p99Ms: number;
}

interface AttemptEntry {
  connection: string;
  model: string;
  kind: string;
  error_type: string | null;
}

const options = parseOptions(process.argv.slice(2));
const runs: { label: string; figures: DeploymentFigures[] }[] = [];
let baseline: BaselineBuild | undefined;
try {
  if (options.baseline !== undefined) baseline = await buildBaseline(options.baseline, process.cwd());
  if (options.baselineDir !== undefined) baseline = existingBaseline(options.baselineDir);
  if (baseline) runs.push({ label: baseline.label, figures: await measure(baseline.cliPath, baseline.label) });
  runs.push({ label: 'working tree', figures: await measure(undefined, 'working tree') });
} finally {
  baseline?.remove();
}
report(runs);
if (options.json) writeFileSync(options.json, `${JSON.stringify(runs, null, 2)}\n`);

async function measure(cliPath: string | undefined, label: string): Promise<DeploymentFigures[]> {
  const mock = await startMockProvider({ maxAttempts: 100_000 });
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-mixed-'));
  const configFile = join(directory, 'config.yaml');
  writeFileSync(configFile, configYaml(mock));
  const serve = await startServeProcess(configFile, cliPath);
  try {
    console.log(`${label}: warming ${FALLBACK} with ${WARM_ANSWERS} streamed answers…`);
    for (let index = 0; index < WARM_ANSWERS; index++) await ask(serve.url, 'warm', false);
    const figures: DeploymentFigures[] = [];
    for (const route of ROUTES) {
      const startedAtMs = Date.now();
      figures.push(await measureRoute(serve.url, route));
      console.log(`${label}: ${route.name}: ${((Date.now() - startedAtMs) / 1_000).toFixed(1)} s`);
    }
    return figures;
  } finally {
    await serve.kill();
    await mock.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

async function measureRoute(url: string, route: Route): Promise<DeploymentFigures> {
  const latencies = new LatencyRecorder();
  const ids: string[] = [];
  const one = async () => {
    const startedAtMs = performance.now();
    ids.push(await ask(url, route.name, route.long === true));
    latencies.record(performance.now() - startedAtMs);
  };
  const startedAtMs = Date.now();
  while (ids.length < options.requests) {
    if (route.everyMs !== undefined) await sleep(startedAtMs + ids.length * route.everyMs - Date.now());
    await one();
  }
  const records = await Promise.all(ids.map((id) => admin<{ served: { connection: string; model: string } | null; attempts: AttemptEntry[]; skipped?: { connection: string; model: string; reason: string }[] }>(url, `/admin/requests/${id}`)));
  const isFirst = (entry: { connection: string; model: string }) => `${entry.connection}/${entry.model}` === route.first;
  const health = await admin<{ data: { deployment: string; state: string }[] }>(url, '/admin/health');
  const [p50Ms, p99Ms] = latencies.summarise([0.5, 0.99]).percentilesMs as [number, number];
  return {
    route: route.name,
    deployment: route.first,
    requests: ids.length,
    served: records.filter((record) => record.served !== null && isFirst(record.served)).length,
    cuts: records.flatMap((record) => record.attempts).filter((attempt) => isFirst(attempt) && attempt.kind === 'timeout').length,
    foundEjected: records.filter((record) => (record.skipped ?? []).some((skip) => isFirst(skip) && skip.reason === 'ejected')).length,
    state: health.data.find((entry) => entry.deployment === route.first)?.state ?? 'unknown',
    p50Ms,
    p99Ms,
  };
}

/** One streamed request; its record id. Every request must be answered: the fallback is always there. */
async function ask(url: string, route: string, long: boolean): Promise<string> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: route, stream: true, messages: [{ role: 'user', content: long ? LONG_PROMPT : 'Count for me.' }] }),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await response.text();
  if (response.status !== 200 || !text.includes('data: [DONE]')) throw new Error(`${route}: ${response.status} ${text.slice(0, 300)}`);
  return response.headers.get('x-request-id')!;
}

async function admin<T>(url: string, path: string): Promise<T> {
  const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`GET ${path} → ${response.status}`);
  return (await response.json()) as T;
}

function configYaml(mock: MockProvider): string {
  const target = (deployment: string) => {
    const [connection, model] = [deployment.slice(0, deployment.indexOf('/')), deployment.slice(deployment.indexOf('/') + 1)];
    return `{ connection: ${connection}, model: "${model}" }`;
  };
  return `auth: { mode: none }
admin: { token: ${ADMIN_TOKEN} }
connections:
  a: { provider: mock, dialect: openai, base_url: "${mock.url}" }
  b: { provider: mock, dialect: anthropic, base_url: "${mock.url}" }
routes:
  warm:
    targets: [${target(FALLBACK)}]
${ROUTES.map((route) => `  ${route.name}:\n    targets: [${target(route.first)}, ${target(FALLBACK)}]`).join('\n')}
`;
}

function report(results: typeof runs): void {
  const header = ['route', 'first target', ...results.flatMap((run) => [`served (${run.label})`, 'cuts', 'found ejected', 'state at the end', 'p50 / p99'])];
  const rows = ROUTES.map((route, index) => [
    route.name,
    route.first,
    ...results.flatMap((run) => {
      const figures = run.figures[index]!;
      return [`${figures.served} / ${figures.requests}`, String(figures.cuts), String(figures.foundEjected), figures.state, `${seconds(figures.p50Ms)} / ${seconds(figures.p99Ms)}`];
    }),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  console.log(['', `== Mixed fleet after ${WARM_ANSWERS} answers of ${FALLBACK}: ${options.requests} streamed requests per route, the fallback ${FALLBACK}`, line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n'));
}

function seconds(ms: number): string {
  return `${(ms / 1_000).toFixed(2)} s`;
}

function parseOptions(argv: string[]): { requests: number; baseline?: string; baselineDir?: string; json?: string } {
  const { values } = parseArgs({
    args: argv,
    options: { requests: { type: 'string', default: '30' }, baseline: { type: 'string' }, 'baseline-dir': { type: 'string' }, json: { type: 'string' } },
    strict: true,
  });
  if (values.baseline !== undefined && values['baseline-dir'] !== undefined) throw new Error('--baseline and --baseline-dir: one or the other');
  return {
    requests: boundedNumber('--requests', values.requests, 1, 500, true),
    ...(values.baseline === undefined ? {} : { baseline: values.baseline }),
    ...(values['baseline-dir'] === undefined ? {} : { baselineDir: values['baseline-dir'] }),
    ...(values.json === undefined ? {} : { json: values.json }),
  };
}

process.on('SIGINT', () => {
  cleanUpAll();
  process.exit(130);
});
