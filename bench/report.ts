/**
 * The throughput mode's figures: every run of every round, and what the tables make of them.
 * A figure that compares two paths (a ratio, a difference) is computed within each round, from
 * runs seconds apart, and the median over rounds is reported: the machine's speed drifts between
 * rounds, much less between neighbouring runs.
 */
import { formatTable } from '../src/cli/format-table.js';
import type { PathMeasurement } from './measure.js';
import { isGateway, scenarios, type PathKind, type ScenarioName } from './scenarios.js';
import { median } from './silent-primary.js';

export interface ThroughputRun {
  round: number;
  scenario: ScenarioName;
  path: string;
  measurement: PathMeasurement;
}

export interface ReportedPath {
  name: string;
  kind: PathKind;
  build: 'working' | 'baseline';
}

export interface ThroughputResults {
  /** In report order. */
  paths: ReportedPath[];
  baselineLabel?: string;
  rounds: number;
  connections: number;
  /** SSE events of each streamed answer, `data: [DONE]` included, as the mock sends them. */
  events: Partial<Record<ScenarioName, number>>;
  runs: ThroughputRun[];
  /** Runs that failed (errors, non-2xx, no response) and were measured again. */
  discarded: { round: number; scenario: ScenarioName; path: string; problem: string }[];
}

export const floorPath = 'bare-proxy';

/** A figure of one round, when that round has the runs it needs. */
export type RoundFigure = (round: number) => number | undefined;
const mib = 1024 * 1024;

function runOf(results: ThroughputResults, round: number, scenario: ScenarioName, path: string): PathMeasurement | undefined {
  return results.runs.find((run) => run.round === round && run.scenario === scenario && run.path === path)?.measurement;
}

/** The median over rounds of a figure each round may or may not have; undefined when none has it. */
export function medianOverRounds(results: ThroughputResults, figure: RoundFigure): number | undefined {
  const values: number[] = [];
  for (let round = 1; round <= results.rounds; round++) {
    const value = figure(round);
    if (value !== undefined && Number.isFinite(value)) values.push(value);
  }
  return values.length === 0 ? undefined : median(values);
}

/** The median over rounds of `own − other`, each round's own pair. */
export function medianDifference(results: ThroughputResults, own: RoundFigure, other: RoundFigure): number | undefined {
  return medianOverRounds(results, (round) => {
    const [ownValue, otherValue] = [own(round), other(round)];
    return ownValue === undefined || otherValue === undefined ? undefined : ownValue - otherValue;
  });
}

/** A path's figure in one scenario, per round, or a figure of two paths in the same round. */
export function perRound<T>(results: ThroughputResults, scenario: ScenarioName, paths: readonly string[], figure: (...runs: PathMeasurement[]) => T): (round: number) => T | undefined {
  return (round) => {
    const runs = paths.map((path) => runOf(results, round, scenario, path));
    return runs.every((run) => run !== undefined) ? figure(...(runs as PathMeasurement[])) : undefined;
  };
}

/** CPU per streamed event: the request's CPU ÷ the events it carried. */
export function cpuPerEvent(results: ThroughputResults, scenario: ScenarioName, run: PathMeasurement): number | undefined {
  const events = results.events[scenario];
  return events === undefined ? undefined : run.cpuUsPerRequest / events;
}

/** CPU per event added by the longer stream: (64-event CPU − 20-event CPU) ÷ (64 − 20 events), i.e. without the per-request part. */
function marginalCpuPerEvent(results: ThroughputResults, short: PathMeasurement, long: PathMeasurement): number | undefined {
  const { 'streaming-20': shortEvents, 'streaming-64': longEvents } = results.events;
  if (shortEvents === undefined || longEvents === undefined) return undefined;
  return (long.cpuUsPerRequest - short.cpuUsPerRequest) / (longEvents - shortEvents);
}

/** One path in one scenario: each figure the median of its rounds. */
export interface SummaryRow {
  scenario: ScenarioName;
  path: string;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  cpuUsPerRequest: number;
  cpuCores: number;
  /** Streaming scenarios only. */
  cpuUsPerEvent?: number;
  /** Not for `direct`, where the mock is the hop. */
  mockCpuUsPerRequest?: number;
  redisCpuUsPerRequest?: number;
  loadGeneratorCores: number;
  otherWorkCores: number;
}

export function summarise(results: ThroughputResults): SummaryRow[] {
  const rows: SummaryRow[] = [];
  for (const scenario of scenarios) {
    for (const path of results.paths) {
      const figure = (read: (run: PathMeasurement) => number | undefined) => medianOverRounds(results, perRound(results, scenario.name, [path.name], read));
      // A figure every measurement carries has a median as soon as the path has a run in this scenario.
      const always = (read: (run: PathMeasurement) => number) => figure(read)!;
      if (figure((run) => run.requestsPerSecond) === undefined) continue;
      const optional = (name: keyof SummaryRow, value: number | undefined) => (value === undefined ? {} : { [name]: value });
      rows.push({
        scenario: scenario.name,
        path: path.name,
        requestsPerSecond: always((run) => run.requestsPerSecond),
        latencyP50Ms: always((run) => run.latencyP50Ms),
        latencyP99Ms: always((run) => run.latencyP99Ms),
        cpuUsPerRequest: always((run) => run.cpuUsPerRequest),
        cpuCores: always((run) => run.cpuCores),
        ...optional('cpuUsPerEvent', scenario.stream ? figure((run) => cpuPerEvent(results, scenario.name, run)) : undefined),
        ...optional('mockCpuUsPerRequest', path.kind === 'direct' ? undefined : figure((run) => run.mockCpuUsPerRequest)),
        ...optional('redisCpuUsPerRequest', figure((run) => run.redisCpuUsPerRequest)),
        loadGeneratorCores: always((run) => run.loadGeneratorCores),
        otherWorkCores: always((run) => run.otherWorkCores),
      });
    }
  }
  return rows;
}

export function measurementTable(rows: readonly SummaryRow[]): string {
  return formatTable(
    ['scenario', 'path', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'CPU cores', 'µs/event', 'mock µs/req', 'redis µs/req', 'load-gen cores', 'others cores'],
    rows.map((row) => [
      row.scenario,
      row.path,
      formatNumber(row.requestsPerSecond, 0),
      formatNumber(row.latencyP50Ms, 2),
      formatNumber(row.latencyP99Ms, 2),
      formatNumber(row.cpuUsPerRequest, 0),
      formatNumber(row.cpuCores, 2),
      formatNumber(row.cpuUsPerEvent, 2, ''),
      formatNumber(row.mockCpuUsPerRequest, 0, ''),
      formatNumber(row.redisCpuUsPerRequest, 0, ''),
      formatNumber(row.loadGeneratorCores, 2),
      formatNumber(row.otherWorkCores, 2),
    ]),
  );
}

export function memoryTable(results: ThroughputResults): string {
  const floorPeak = peakRss(results, floorPath);
  return formatTable(
    ['server', 'RSS after warm-up MiB', 'peak RSS MiB', 'peak ÷ floor'],
    results.paths.map((path) => {
      const peak = peakRss(results, path.name);
      return [
        path.kind === 'direct' ? 'direct (the mock)' : path.name,
        formatNumber(rssAfterFirstWarmup(results, path.name), 0, '—', mib),
        formatNumber(peak, 0, '—', mib),
        peak === undefined || floorPeak === undefined ? '—' : `${(peak / floorPeak).toFixed(2)}×`,
      ];
    }),
  );
}

/** The server's resident memory once its first measurement's warm-up was over. */
function rssAfterFirstWarmup(results: ThroughputResults, path: string): number | undefined {
  return results.runs.find((run) => run.path === path)?.measurement.rssAfterWarmupBytes;
}

/** The most the server was ever resident during the throughput runs. */
export function peakRss(results: ThroughputResults, path: string): number | undefined {
  const peaks = results.runs.filter((run) => run.path === path).map((run) => run.measurement.peakRssBytes);
  return peaks.length === 0 ? undefined : Math.max(...peaks);
}

export function perEventTable(results: ThroughputResults): string {
  const { 'streaming-20': shortEvents, 'streaming-64': longEvents } = results.events;
  const perEvent = (scenario: ScenarioName, path: string) => perRound(results, scenario, [path], (run) => cpuPerEvent(results, scenario, run));
  const overFloor = (own: RoundFigure, floor: RoundFigure) => medianDifference(results, own, floor);
  const marginal = (path: string): RoundFigure => (round) => marginalInRound(results, round, path);
  const rows = results.paths
    .filter((path) => path.kind !== 'direct')
    .map((path) => {
      const isFloor = path.name === floorPath;
      return [
        path.name,
        formatNumber(medianOverRounds(results, perEvent('streaming-20', path.name)), 2),
        formatNumber(medianOverRounds(results, perEvent('streaming-64', path.name)), 2),
        formatNumber(medianOverRounds(results, marginal(path.name)), 2),
        isFloor ? '' : formatSigned(overFloor(perEvent('streaming-20', path.name), perEvent('streaming-20', floorPath)), 2),
        isFloor ? '' : formatSigned(overFloor(perEvent('streaming-64', path.name), perEvent('streaming-64', floorPath)), 2),
        isFloor ? '' : formatSigned(overFloor(marginal(path.name), marginal(floorPath)), 2),
      ];
    });
  return formatTable(
    [
      'path',
      `µs/event, ${shortEvents ?? '?'} events`,
      `µs/event, ${longEvents ?? '?'} events`,
      'µs per extra event',
      `− floor's, ${shortEvents ?? '?'}`,
      `− floor's, ${longEvents ?? '?'}`,
      "− floor's, per extra event",
    ],
    rows,
  );
}

/** CPU per extra event between the two streaming runs of one round. */
export function marginalInRound(results: ThroughputResults, round: number, path: string): number | undefined {
  const short = runOf(results, round, 'streaming-20', path);
  const long = runOf(results, round, 'streaming-64', path);
  return short === undefined || long === undefined ? undefined : marginalCpuPerEvent(results, short, long);
}

export function floorComparisonTable(results: ThroughputResults): string {
  const rows: string[][] = [];
  for (const scenario of scenarios) {
    for (const path of results.paths.filter((candidate) => isGateway(candidate.kind))) {
      const versus = <T>(figure: (own: PathMeasurement, floor: PathMeasurement) => T) => medianOverRounds(results, perRound(results, scenario.name, [path.name, floorPath], figure as (...runs: PathMeasurement[]) => number));
      const cpu = versus((own, floor) => own.cpuUsPerRequest / floor.cpuUsPerRequest);
      if (cpu === undefined) continue;
      rows.push([
        scenario.name,
        path.name,
        formatTimes(cpu),
        formatTimes(versus((own, floor) => own.requestsPerSecond / floor.requestsPerSecond)),
        formatSigned(versus((own, floor) => own.latencyP50Ms - floor.latencyP50Ms), 2),
        formatSigned(versus((own, floor) => own.latencyP99Ms - floor.latencyP99Ms), 2),
      ]);
    }
  }
  return formatTable(['scenario', 'path', 'CPU/req × floor', 'req/s × floor', 'added p50 ms', 'added p99 ms'], rows);
}

/** The working tree's gateways against the baseline's: CPU per request and requests/s, round by round, then the median. */
export function baselineTable(results: ThroughputResults): string {
  const label = results.baselineLabel!;
  const rounds = Array.from({ length: results.rounds }, (_, index) => index + 1);
  const rows: string[][] = [];
  for (const scenario of scenarios) {
    for (const kind of ['gateway', 'gateway-redis'] as const) {
      for (const [figureName, read] of [
        ['CPU µs/req', (run: PathMeasurement) => run.cpuUsPerRequest],
        ['req/s', (run: PathMeasurement) => run.requestsPerSecond],
      ] as const) {
        const ratio = perRound(results, scenario.name, [kind, `${kind}@${label}`], (working, baseline) => read(working) / read(baseline));
        if (rounds.every((round) => ratio(round) === undefined)) continue;
        rows.push([scenario.name, kind, figureName, ...rounds.map((round) => formatTimes(ratio(round))), formatTimes(medianOverRounds(results, ratio))]);
      }
    }
  }
  return formatTable(['scenario', 'path', `working ÷ ${label}`, ...rounds.map((round) => `round ${round}`), 'median'], rows);
}

/** One line per round, printed as soon as it ends: what the round says against the floor and the baseline. */
export function roundSummary(results: ThroughputResults, round: number): string {
  const parts: string[] = [];
  const cpuRatio = (scenario: ScenarioName, own: string, other: string) =>
    perRound(results, scenario, [own, other], (first, second) => first.cpuUsPerRequest / second.cpuUsPerRequest)(round);
  const versus = (own: string, other: string) =>
    scenarios
      .map((scenario) => [scenario.name, cpuRatio(scenario.name, own, other)] as const)
      .filter(([, ratio]) => ratio !== undefined)
      .map(([name, ratio]) => `${name} ${formatTimes(ratio)}`)
      .join(', ');
  if (results.baselineLabel !== undefined) {
    for (const kind of ['gateway', 'gateway-redis']) {
      const line = versus(kind, `${kind}@${results.baselineLabel}`);
      if (line !== '') parts.push(`  CPU/req ${kind} ÷ ${kind}@${results.baselineLabel}: ${line}`);
    }
  }
  const floorLine = versus('gateway', floorPath);
  if (floorLine !== '') parts.push(`  CPU/req gateway ÷ floor: ${floorLine}`);
  return [`round ${round} of ${results.rounds}:`, ...parts].join('\n');
}

export function formatNumber(value: number | undefined, digits: number, missing = '—', unit = 1): string {
  return value === undefined || !Number.isFinite(value) ? missing : (value / unit).toFixed(digits);
}

export function formatSigned(value: number | undefined, digits: number): string {
  if (value === undefined || !Number.isFinite(value)) return '—';
  return `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;
}

export function formatTimes(ratio: number | undefined): string {
  return ratio === undefined || !Number.isFinite(ratio) ? '—' : `${ratio.toFixed(2)}×`;
}
