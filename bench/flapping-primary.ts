/**
 * `npm run bench:flapping`: a primary that goes down and comes back (issue 23: 503s for 60 s, a
 * caller every 1.5 s), behind a two-target route that sets nothing but its targets. Per mode — the
 * default config (recovery probes every 2 s) and `recovery_probe_s: 0` (caller trials only, as
 * before) — a fresh gateway in this process, the mock as the standby, and the mock behind a
 * switchable pass-through (bench/switchable-upstream.ts) as the primary. Callers send on a fixed
 * schedule, whatever became of the last (open loop), through `--lead-s` healthy seconds, the
 * outage, and `--after-s` after it. Prints how long after the recovery the primary was readmitted
 * and first answered a caller, the upstream requests to the primary during the outage (probes and
 * callers), and callers not answered.
 *
 *   npm run bench:flapping -- [--outage-s 60] [--every-ms 1500] [--lead-s 10] [--after-s 20] [--runs 1] [--modes default,off] [--seed 23] [--json FILE]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { createApp } from '../src/app.js';
import { ConfigSource } from '../src/config/config-source.js';
import { startMockProvider } from '../src/mock/mock-provider.js';
import { boundedNumber } from './bounded-number.js';
import { seededRandom } from './seeded-random.js';
import { startSwitchableUpstream, type UpstreamRequest } from './switchable-upstream.js';

/** The issue's targets, for its scenario (the defaults). */
const TARGETS = { backOnPrimaryMs: 3_000, upstreamDuringOutage: 40 } as const;
const PRIMARY = 'primary/gpt-mock';

interface Mode {
  name: string;
  /** The route's `health` line, YAML under the route, indented by four spaces (empty: nothing set). */
  health: string;
}

const MODES: Record<string, Mode> = {
  default: { name: 'default (recovery_probe_s: 2)', health: '' },
  off: { name: 'recovery_probe_s: 0 (caller trials only)', health: '    health: { recovery_probe_s: 0 }\n' },
};

interface FlappingOptions {
  outageS: number;
  everyMs: number;
  leadS: number;
  afterS: number;
  runs: number;
  modes: Mode[];
  seed: number;
  json: string | undefined;
}

interface Answer {
  sentAtMs: number;
  answeredAtMs: number;
  status: number;
  servedBy: string | null;
}

interface RunResult {
  mode: string;
  run: number;
  outageMs: number;
  /** Until the first request the primary answered after it came back (a probe's or a caller's); null: none did. */
  readmittedAfterMs: number | null;
  firstSuccessAfterRecoveryWas: 'probe' | 'caller' | null;
  /** Until a caller's answer from the primary was complete; null: none came within `--after-s`. */
  servedByPrimaryAfterMs: number | null;
  duringOutage: { probes: number; callers: number; callersAnsweredByStandby: number; callersSent: number };
  callers: number;
  callersNotAnswered: number;
}

const options = parseOptions(process.argv.slice(2));
const random = seededRandom(options.seed);
const results: RunResult[] = [];
for (let run = 1; run <= options.runs; run++) {
  // Where in the callers' rhythm the outage starts, drawn per run: the figures depend on it.
  const offsetMs = random() * options.everyMs;
  for (const mode of options.modes) results.push(await runOnce(mode, run, offsetMs));
}
report(results);

async function runOnce(mode: Mode, run: number, offsetMs: number): Promise<RunResult> {
  const mock = await startMockProvider();
  const upstream = await startSwitchableUpstream(mock);
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-flapping-'));
  const configFile = join(directory, 'config.yaml');
  writeFileSync(
    configFile,
    `store: { kind: sqlite, path: ":memory:" }
auth: { mode: none }
connections:
  primary: { provider: mock, dialect: openai, base_url: "${upstream.baseUrl}" }
  standby: { provider: mock, dialect: openai }
routes:
  chat:
${mode.health}    targets:
      - { connection: primary, model: gpt-mock }
      - { connection: standby, model: gpt-mock }
`,
  );
  const app = await createApp({ configSource: ConfigSource.load(configFile, { env: {} }), env: {}, mockUrl: () => mock.url });
  try {
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const startMs = performance.now();
    const outage = { downAtMs: Number.NaN, upAtMs: Number.NaN };
    const switches = (async () => {
      await sleep(options.leadS * 1_000 + offsetMs);
      upstream.down = true;
      outage.downAtMs = performance.now();
      await sleep(options.outageS * 1_000);
      upstream.down = false;
      outage.upAtMs = performance.now();
    })();
    const endMs = startMs + (options.leadS + options.outageS + options.afterS) * 1_000 + offsetMs;
    const answers: Promise<Answer>[] = [];
    for (let nextMs = startMs; nextMs < endMs; nextMs += options.everyMs) {
      await sleep(Math.max(0, nextMs - performance.now()));
      answers.push(ask(url));
    }
    await switches;
    return summarise(mode, run, outage, upstream.requests, await Promise.all(answers));
  } finally {
    await app.close();
    await upstream.close();
    await mock.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** One caller request; a failure to get an answer at all is a status of 0. */
async function ask(url: string): Promise<Answer> {
  const sentAtMs = performance.now();
  try {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }),
      signal: AbortSignal.timeout(60_000),
    });
    await response.arrayBuffer();
    return { sentAtMs, answeredAtMs: performance.now(), status: response.status, servedBy: response.headers.get('x-switchyard-served-by') };
  } catch {
    return { sentAtMs, answeredAtMs: performance.now(), status: 0, servedBy: null };
  }
}

function summarise(mode: Mode, run: number, outage: { downAtMs: number; upAtMs: number }, requests: readonly UpstreamRequest[], answers: readonly Answer[]): RunResult {
  const { downAtMs, upAtMs } = outage;
  const inOutage = requests.filter((request) => request.atMs >= downAtMs && request.atMs < upAtMs);
  const firstSuccess = requests.find((request) => request.atMs >= upAtMs && request.status === 200);
  const fromPrimary = answers.filter((answer) => answer.sentAtMs >= downAtMs && answer.servedBy === PRIMARY && answer.status === 200);
  const callersInOutage = answers.filter((answer) => answer.sentAtMs >= downAtMs && answer.sentAtMs < upAtMs);
  return {
    mode: mode.name,
    run,
    outageMs: upAtMs - downAtMs,
    readmittedAfterMs: firstSuccess ? firstSuccess.atMs - upAtMs : null,
    firstSuccessAfterRecoveryWas: firstSuccess ? (firstSuccess.probe ? 'probe' : 'caller') : null,
    servedByPrimaryAfterMs: fromPrimary.length > 0 ? Math.min(...fromPrimary.map((answer) => answer.answeredAtMs)) - upAtMs : null,
    duringOutage: {
      probes: inOutage.filter((request) => request.probe).length,
      callers: inOutage.filter((request) => !request.probe).length,
      callersAnsweredByStandby: callersInOutage.filter((answer) => answer.status === 200 && answer.servedBy !== PRIMARY).length,
      callersSent: callersInOutage.length,
    },
    callers: answers.length,
    callersNotAnswered: answers.filter((answer) => answer.status !== 200).length,
  };
}

function report(runs: readonly RunResult[]): void {
  const seconds = (ms: number | null) => (ms === null ? `never (within ${options.afterS} s)` : `${(ms / 1_000).toFixed(2)} s`);
  console.log(
    `primary down ${options.outageS} s (503s) after ${options.leadS} s healthy, then ${options.afterS} s healthy; a caller every ${options.everyMs} ms (open loop); ` +
      `${options.runs} run(s), the outage's start drawn within the callers' rhythm (seed ${options.seed})\n`,
  );
  console.log('| mode | run | primary back → readmitted (by) | primary back → first caller answered by it | upstream to the primary during the outage: probes + callers = total | callers during the outage answered by the standby | callers not answered (of all) |');
  console.log('|---|---|---|---|---|---|---|');
  for (const result of runs) {
    const { probes, callers, callersAnsweredByStandby, callersSent } = result.duringOutage;
    const by = result.firstSuccessAfterRecoveryWas ? ` (${result.firstSuccessAfterRecoveryWas})` : '';
    console.log(
      `| ${result.mode} | ${result.run} | ${seconds(result.readmittedAfterMs)}${by} | ${seconds(result.servedByPrimaryAfterMs)} | ${probes} + ${callers} = ${probes + callers} | ` +
        `${callersAnsweredByStandby} of ${callersSent} | ${result.callersNotAnswered} (of ${result.callers}) |`,
    );
  }
  const defaults = runs.filter((result) => result.mode === MODES.default!.name);
  if (defaults.length > 0) {
    const isIssueScenario = options.outageS === 60 && options.everyMs === 1_500;
    console.log(`\ntargets, default config${isIssueScenario ? '' : ` (set for the issue's 60 s / 1.5 s scenario; this run is ${options.outageS} s / ${options.everyMs} ms)`}:`);
    for (const result of defaults) {
      const { probes, callers, callersAnsweredByStandby, callersSent } = result.duringOutage;
      const back = result.servedByPrimaryAfterMs !== null && result.servedByPrimaryAfterMs <= TARGETS.backOnPrimaryMs;
      const upstreamCount = probes + callers;
      const allAnswered = result.callersNotAnswered === 0 && callersAnsweredByStandby === callersSent;
      console.log(
        `  run ${result.run}: back on the primary ${seconds(result.servedByPrimaryAfterMs)} ≤ ${TARGETS.backOnPrimaryMs / 1_000} s: ${back ? 'PASS' : 'MISS'}; ` +
          `${upstreamCount} upstream requests to the primary during the outage ≤ ${TARGETS.upstreamDuringOutage}: ${upstreamCount <= TARGETS.upstreamDuringOutage ? 'PASS' : 'MISS'}; ` +
          `every caller answered, by the standby during the outage: ${allAnswered ? 'PASS' : 'MISS'}`,
      );
    }
  }
  if (options.json !== undefined) writeFileSync(options.json, `${JSON.stringify({ options: { ...options, modes: options.modes.map((mode) => mode.name) }, runs }, null, 2)}\n`);
}

function parseOptions(argv: readonly string[]): FlappingOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      'outage-s': { type: 'string', default: '60' },
      'every-ms': { type: 'string', default: '1500' },
      'lead-s': { type: 'string', default: '10' },
      'after-s': { type: 'string', default: '20' },
      runs: { type: 'string', default: '1' },
      modes: { type: 'string', default: 'default,off' },
      seed: { type: 'string', default: '23' },
      json: { type: 'string' },
    },
    strict: true,
  });
  const modes = values.modes.split(',').map((name) => {
    const mode = MODES[name.trim()];
    if (mode === undefined) throw new Error(`--modes takes a list of ${Object.keys(MODES).join(', ')}, got "${values.modes}"`);
    return mode;
  });
  return {
    outageS: boundedNumber('--outage-s', values['outage-s'], 1, 3_600, false),
    everyMs: boundedNumber('--every-ms', values['every-ms'], 10, 60_000, false),
    leadS: boundedNumber('--lead-s', values['lead-s'], 0, 600, false),
    afterS: boundedNumber('--after-s', values['after-s'], 1, 3_600, false),
    runs: boundedNumber('--runs', values.runs, 1, 100, true),
    modes,
    seed: boundedNumber('--seed', values.seed, 0, 2 ** 32 - 1, true),
    json: values.json,
  };
}
