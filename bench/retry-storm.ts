/**
 * `npm run bench:retry-storm`: the incident the retry budget exists for, replayed. Steady open-loop
 * traffic from the official `openai` SDK (default retries: 2) through a two-target route; after
 * the baseline the primary answers every request with 503 and `retry-after: 2` for the fault's
 * length, then recovers. Counts, second by second, the requests leaving the gateway toward each
 * provider (at the providers), the callers' own retries and the requests in flight at the gateway,
 * once with the route's `retry_budget` at its defaults and once with one too large to bind, and
 * prints them as a terminal chart with the figures the targets are judged on.
 *
 * The gateway (bench/servers/gateway-server.ts) and the providers (bench/servers/storm-upstream.ts)
 * each run in a process of their own; the callers run in this one.
 *
 *   npm run bench:retry-storm -- [--quick] [--rate 400] [--warmup-s 3] [--baseline-s 10] [--fault-s 30] [--recovery-s 10] [--json FILE]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setMaxListeners } from 'node:events';
import { parseArgs } from 'node:util';
import OpenAI from 'openai';
import { startChildServer, stopAllChildServers, type ChildServer } from './child-server.js';
import { median } from './silent-primary.js';

const PROVIDERS = ['primary', 'standby'] as const;
/** Once the schedule is done, how long callers still in flight are waited for before they are given up on. */
const DRAIN_MS = 30_000;
const SCHEDULER_TICK_MS = 5;
const IN_FLIGHT_SAMPLE_MS = 50;
/** Below this share of the asked rate the callers did not keep their schedule. */
const LOAD_HELD_SHARE = 0.95;
/** A baseline with this many times rate × answer time in flight was queueing, not steady. */
const QUEUEING_FACTOR = 1.5;
/** Eighths of a block, lowest first: one character per second of a series. */
const BARS = ' ▁▂▃▄▅▆▇█';

interface StormOptions {
  /** Caller requests per second. */
  rate: number;
  /** Load before the baseline, left out of every figure: the gateway's code and connections warm up. */
  warmupS: number;
  baselineS: number;
  faultS: number;
  recoveryS: number;
  /** How long each provider takes to answer when it does. */
  answerMs: number;
  json: string | undefined;
}

interface Mode {
  name: string;
  /** The route's `retry_budget` line, if any. */
  budget: string;
}

const MODES: Mode[] = [
  { name: 'retry_budget at its defaults (ratio 0.1, min_per_second 5)', budget: '' },
  // The config refuses a ratio above 1, so "too large to bind" is the largest ratio with a floor no burst can spend.
  { name: 'retry_budget too large to bind (ratio 1, min_per_second 1000000)', budget: '    retry_budget: { ratio: 1, min_per_second: 1000000 }\n' },
];

/** Per-second counts, index = seconds since the load started. */
interface Series {
  toPrimary: number[];
  toStandby: number[];
  /** Caller requests started (the schedule). */
  sent: number[];
  /** HTTP requests the SDK sent again on its own (`x-stainless-retry-count` above 0). */
  callerRetries: number[];
  /** The most HTTP requests the callers had open at the gateway at once during the second. */
  inFlight: number[];
}

interface Answers {
  /**
   * Caller requests sent while the primary was failing, by who answered them: from a second after
   * the fault began to a second before it ended, so none reached the primary just before its
   * fault was switched on or just after it ended.
   */
  duringFault: { standby: number; primary: number; failed: number };
  answered: number;
  failed: number;
  /** Still unanswered when the drain time ran out (aborted). */
  unanswered: number;
  /** Every HTTP request the SDK sent again on its own, the drain included (the series stops with the schedule). */
  callerRetries: number;
}

interface ModeResult {
  mode: string;
  series: Series;
  answers: Answers;
  figures: ReturnType<typeof figuresOf>;
  /** From the gateway's /metrics at the end. */
  gateway: { retryBudgetExhausted: number; callerRetriesSeen: number };
}

const options = parseOptions(process.argv.slice(2));
const results: ModeResult[] = [];
try {
  for (const mode of MODES) results.push(await runMode(mode));
} finally {
  await stopAllChildServers();
}
report(results);

async function runMode(mode: Mode): Promise<ModeResult> {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-retry-storm-'));
  const children: ChildServer[] = [];
  try {
    const upstream = await startChildServer('providers', 'storm-upstream.js', [String(options.answerMs)]);
    children.push(upstream);
    const configFile = join(directory, 'config.yaml');
    writeFileSync(configFile, configYaml(mode.budget, upstream.url, join(directory, 'switchyard.db')));
    const gateway = await startChildServer('gateway', 'gateway-server.js', [configFile]);
    children.push(gateway);

    const load = await runLoad(gateway.url, upstream.url);
    const providers = (await (await fetch(`${upstream.url}/_bench/series`)).json()) as { arrivals: Record<string, number[]> };
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    const series: Series = {
      toPrimary: measured(providers.arrivals.primary!),
      toStandby: measured(providers.arrivals.standby!),
      sent: measured(load.sent),
      callerRetries: measured(load.callerRetries),
      inFlight: measured(load.inFlight),
    };
    return {
      mode: mode.name,
      series,
      answers: load.answers,
      figures: figuresOf(series, load.answers),
      gateway: { retryBudgetExhausted: metricTotal(metrics, 'switchyard_retry_budget_exhausted_total'), callerRetriesSeen: metricTotal(metrics, 'switchyard_caller_retries_total') },
    };
  } finally {
    for (const child of children.reverse()) await child.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

function configYaml(budget: string, upstreamUrl: string, storePath: string): string {
  return `server: { host: 127.0.0.1, port: 0 }
store: { kind: sqlite, path: ${JSON.stringify(storePath)} }
auth: { mode: none }
connections:
${PROVIDERS.map((name) => `  ${name}: { provider: openai-compatible, base_url: "${upstreamUrl}/${name}/v1", api_key: bench-key }`).join('\n')}
routes:
  chat:
${budget}    targets:
${PROVIDERS.map((name) => `      - { connection: ${name}, model: storm-model }`).join('\n')}
`;
}

/**
 * The open loop: `rate` caller requests a second, each started on schedule whatever happened to
 * the earlier ones, for the warm-up, the baseline, the fault and the recovery; the fault is
 * switched on at the providers once the baseline is over. Returns the callers' per-second counts
 * (from the warm-up's start) once every caller was answered (or the drain time ran out).
 */
async function runLoad(gatewayUrl: string, upstreamUrl: string): Promise<{ sent: number[]; callerRetries: number[]; inFlight: number[]; answers: Answers }> {
  const seconds = options.warmupS + options.baselineS + options.faultS + options.recoveryS;
  const total = options.rate * seconds;
  const sent: number[] = [];
  const callerRetries: number[] = [];
  const inFlight: number[] = [];
  const answers: Answers = { duringFault: { standby: 0, primary: 0, failed: 0 }, answered: 0, failed: 0, unanswered: 0, callerRetries: 0 };
  let open = 0;
  let startedAtMs = 0;
  const secondNow = (): number => Math.floor((Date.now() - startedAtMs) / 1000);
  const bump = (series: number[], second: number, by = 1): void => {
    while (series.length <= second) series.push(0);
    series[second]! += by;
  };
  const notePeak = (): void => {
    const second = secondNow();
    while (inFlight.length <= second) inFlight.push(0);
    inFlight[second] = Math.max(inFlight[second]!, open);
  };
  const client = new OpenAI({
    baseURL: `${gatewayUrl}/v1`,
    apiKey: 'bench-caller',
    fetch: async (url, init) => {
      if (Number(new Headers(init?.headers).get('x-stainless-retry-count') ?? 0) > 0) {
        answers.callerRetries += 1;
        bump(callerRetries, secondNow());
      }
      open += 1;
      notePeak();
      try {
        return await fetch(url, init);
      } finally {
        open -= 1;
      }
    },
  });
  const giveUp = new AbortController();
  // Every caller's request listens to it, to be given up on once the drain time is out.
  setMaxListeners(0, giveUp.signal);
  const faultStartMs = (options.warmupS + options.baselineS) * 1000;
  const faultEndMs = faultStartMs + options.faultS * 1000;
  const callOne = async (): Promise<void> => {
    const sentAtMs = Date.now() - startedAtMs;
    bump(sent, Math.floor(sentAtMs / 1000));
    const inFault = sentAtMs >= faultStartMs + 1000 && sentAtMs < faultEndMs - 1000;
    try {
      const { response } = await client.chat.completions
        .create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }, { signal: giveUp.signal })
        .withResponse();
      answers.answered += 1;
      const servedBy = (response.headers.get('x-switchyard-served-by') ?? '').split('/')[0];
      if (inFault) answers.duringFault[servedBy === 'standby' ? 'standby' : 'primary'] += 1;
    } catch (error) {
      if (giveUp.signal.aborted) answers.unanswered += 1;
      else answers.failed += 1;
      if (inFault) answers.duringFault.failed += 1;
      if (answers.failed === 1 && !giveUp.signal.aborted) process.stderr.write(`retry-storm: first caller failure: ${(error as Error).message}\n`);
    }
  };

  await fetch(`${upstreamUrl}/_bench/start`, { method: 'POST' });
  startedAtMs = Date.now();
  const sampler = setInterval(notePeak, IN_FLIGHT_SAMPLE_MS);
  const calls: Promise<void>[] = [];
  let faultSwitched = false;
  await new Promise<void>((resolve) => {
    const scheduler = setInterval(() => {
      const elapsedMs = Date.now() - startedAtMs;
      if (!faultSwitched && elapsedMs >= faultStartMs) {
        faultSwitched = true;
        void fetch(`${upstreamUrl}/_bench/fault?ms=${options.faultS * 1000}`, { method: 'POST' });
      }
      const due = Math.min(total, Math.floor((elapsedMs / 1000) * options.rate));
      while (calls.length < due) calls.push(callOne());
      if (calls.length >= total) {
        clearInterval(scheduler);
        resolve();
      }
    }, SCHEDULER_TICK_MS);
  });
  const drainTimer = setTimeout(() => giveUp.abort(), DRAIN_MS);
  await Promise.all(calls);
  clearTimeout(drainTimer);
  clearInterval(sampler);
  return { sent, callerRetries, inFlight, answers };
}

/**
 * The figures the targets are judged on. Outbound: the baseline's median second against the worst
 * second from the fault's start on. In flight: the baseline's median second against the fault's
 * median second — each second's figure is already its peak, so a worst second mostly shows how
 * long this process was kept off the CPU; the worst seconds are reported beside it.
 */
function figuresOf(series: Series, answers: Answers) {
  const baselineSeconds = (values: number[]): number[] => values.slice(0, options.baselineS);
  const afterFaultStart = (values: number[]): number[] => values.slice(options.baselineS);
  const primaryBaseline = median(baselineSeconds(series.toPrimary));
  const primaryPeak = Math.max(...afterFaultStart(series.toPrimary));
  const inFlightSteady = median(baselineSeconds(series.inFlight));
  const inFlightDuringFault = median(series.inFlight.slice(options.baselineS, options.baselineS + options.faultS));
  const faultAnswers = answers.duringFault;
  return {
    sendRateMedian: median(series.sent),
    primaryBaselinePerSecond: primaryBaseline,
    primaryPeakPerSecond: primaryPeak,
    primaryPeakRatio: primaryPeak / primaryBaseline,
    primaryRequestsDuringFault: series.toPrimary.slice(options.baselineS, options.baselineS + options.faultS).reduce((sum, value) => sum + value, 0),
    callerRetries: answers.callerRetries,
    inFlightSteady,
    inFlightDuringFault,
    inFlightRatio: inFlightDuringFault / inFlightSteady,
    inFlightBaselineWorstSecond: Math.max(...baselineSeconds(series.inFlight)),
    inFlightWorstSecond: Math.max(...afterFaultStart(series.inFlight)),
    everyCallerAnsweredByStandby: answers.failed === 0 && answers.unanswered === 0 && faultAnswers.primary === 0 && faultAnswers.failed === 0,
  };
}

function report(modes: readonly ModeResult[]): void {
  console.log(
    `${options.rate} caller requests/s (openai SDK, default retries): ${options.warmupS} s of warm-up (not shown), ${options.baselineS} s of baseline, then the primary answers 503 + retry-after: 2 for ${options.faultS} s, ` +
      `then ${options.recoveryS} s more; providers answer in ${options.answerMs} ms`,
  );
  for (const mode of modes) {
    const { series, figures, answers, gateway } = mode;
    const outboundMax = Math.max(1, ...series.toPrimary, ...series.toStandby);
    console.log(`\n${mode.mode}\n`);
    console.log(`  ${'second'.padEnd(22)}${axis(series.sent.length)}`);
    console.log(`  ${'503 window'.padEnd(22)}${series.sent.map((_, second) => (second >= options.baselineS && second < options.baselineS + options.faultS ? '━' : ' ')).join('')}`);
    console.log(`  ${'to primary /s'.padEnd(22)}${sparkline(series.toPrimary, outboundMax)}  max ${Math.max(...series.toPrimary)}`);
    console.log(`  ${'to standby /s'.padEnd(22)}${sparkline(series.toStandby, outboundMax)}  max ${Math.max(...series.toStandby)}`);
    const retriesMax = Math.max(1, ...series.callerRetries);
    console.log(`  ${'caller retries /s'.padEnd(22)}${sparkline(series.callerRetries, retriesMax)}  max ${Math.max(...series.callerRetries)}`);
    console.log(`  ${'in flight (peak)'.padEnd(22)}${sparkline(series.inFlight, Math.max(1, ...series.inFlight))}  max ${Math.max(...series.inFlight)}`);
    console.log('');
    console.log(`  callers sent ${figures.sendRateMedian} requests/s (median); answered ${answers.answered}, failed ${answers.failed}, unanswered after the drain ${answers.unanswered}`);
    for (const warning of loadWarnings(figures)) console.log(`  warning: ${warning}`);
    console.log(
      `  outbound to the primary: baseline ${figures.primaryBaselinePerSecond}/s, peak after the fault began ${figures.primaryPeakPerSecond}/s = ${figures.primaryPeakRatio.toFixed(2)}× (target ≤ 1.1×: ${verdict(figures.primaryPeakRatio <= 1.1)}); ` +
        `${figures.primaryRequestsDuringFault} requests reached it during the ${options.faultS} s fault`,
    );
    console.log(
      `  callers' own retries: ${figures.callerRetries} (target 0, x-should-retry: false: ${verdict(figures.callerRetries === 0)}); the gateway counted ${gateway.callerRetriesSeen}; retries the budget refused: ${gateway.retryBudgetExhausted}`,
    );
    console.log(
      `  in flight: steady ${figures.inFlightSteady}, during the fault ${figures.inFlightDuringFault} (median seconds) = ${figures.inFlightRatio.toFixed(2)}× (target ≤ 1.2×: ${verdict(figures.inFlightRatio <= 1.2)}); ` +
        `worst second ${figures.inFlightBaselineWorstSecond} before the fault, ${figures.inFlightWorstSecond} from its start on`,
    );
    const duringFault = answers.duringFault;
    console.log(
      `  sent during the fault (its first and last second left out): ${duringFault.standby} answered by the standby, ${duringFault.primary} by the primary, ${duringFault.failed} failed — every caller answered by the standby: ${verdict(figures.everyCallerAnsweredByStandby)}`,
    );
  }
  if (options.json !== undefined) writeFileSync(options.json, `${JSON.stringify({ options, modes }, null, 2)}\n`);
}

/**
 * Why this run's figures describe the machine rather than the gateway: a schedule the callers
 * could not keep, or a baseline already queueing (in flight well above rate × answer time).
 */
function loadWarnings(figures: ReturnType<typeof figuresOf>): string[] {
  const warnings: string[] = [];
  if (figures.sendRateMedian < LOAD_HELD_SHARE * options.rate) warnings.push(`the load did not hold: the callers sent ${figures.sendRateMedian} of ${options.rate} requests/s; try a lower --rate`);
  const expectedInFlight = (options.rate * options.answerMs) / 1000;
  if (figures.inFlightSteady > QUEUEING_FACTOR * expectedInFlight) {
    warnings.push(`the baseline was already queueing: ${figures.inFlightSteady} in flight where ${options.rate}/s × ${options.answerMs} ms is ${expectedInFlight}; try a lower --rate`);
  }
  return warnings;
}

function verdict(met: boolean): string {
  return met ? 'PASS' : 'MISS';
}

/** One character per second, the height of each its share of `max`. */
function sparkline(values: readonly number[], max: number): string {
  return values.map((value) => (value === 0 ? '·' : BARS[Math.max(1, Math.round((value / max) * (BARS.length - 1)))])).join('');
}

/** A tick every ten seconds, labelled. */
function axis(seconds: number): string {
  let line = '';
  for (let second = 0; second < seconds; second += 10) line += String(second).padEnd(Math.min(10, seconds - second));
  return line;
}

/** A series counted from the warm-up's start, without the warm-up, one entry per measured second. */
function measured(values: readonly number[]): number[] {
  return Array.from({ length: options.baselineS + options.faultS + options.recoveryS }, (_, index) => values[options.warmupS + index] ?? 0);
}

/** The sum of a counter's series in Prometheus text, over all its labels. */
function metricTotal(text: string, name: string): number {
  let total = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  return total;
}

function parseOptions(argv: readonly string[]): StormOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean', default: false },
      rate: { type: 'string' },
      'warmup-s': { type: 'string' },
      'baseline-s': { type: 'string' },
      'fault-s': { type: 'string' },
      'recovery-s': { type: 'string' },
      'answer-ms': { type: 'string', default: '500' },
      json: { type: 'string' },
    },
    strict: true,
  });
  // Quick: a smoke run of a few seconds at a low rate; its figures say little.
  const quick = values.quick;
  return {
    rate: bounded('--rate', values.rate ?? (quick ? '40' : '400'), 1, 5_000),
    warmupS: bounded('--warmup-s', values['warmup-s'] ?? (quick ? '1' : '3'), 0, 60),
    baselineS: bounded('--baseline-s', values['baseline-s'] ?? (quick ? '1' : '10'), 1, 120),
    faultS: bounded('--fault-s', values['fault-s'] ?? (quick ? '3' : '30'), 1, 300),
    recoveryS: bounded('--recovery-s', values['recovery-s'] ?? (quick ? '1' : '10'), 0, 120),
    answerMs: bounded('--answer-ms', values['answer-ms'], 0, 10_000),
    json: values.json,
  };
}

function bounded(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < min || value > max) throw new Error(`${flag} must be a whole number from ${min} to ${max}, got "${text}"`);
  return value;
}
