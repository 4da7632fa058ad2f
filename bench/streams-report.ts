import { formatTable } from '../src/cli/format-table.js';
import { floorPath, formatNumber, formatSigned, formatTimes } from './report.js';
import type { StreamsRun } from './streams-mode.js';
import type { TargetFigure, TargetRow } from './targets.js';

const streamCpuGoal = 2;
const streamRssGoalBytes = 150 * 1024;
const streamAddedGapGoalMs = 5;

const mib = 1024 * 1024;

export function streamsTable(runs: readonly StreamsRun[]): string {
  return formatTable(
    ['streams', 'path', 'connect s', 'accept overflows', 'complete', 'errors', 'TTFB p99 ms', 'gap p50 ms', 'gap p99 ms', 'plateau gap p99 ms', 'plateau s', 'CPU % of a core', 'CPU µs/chunk', 'load side cores', 'others cores', 'idle RSS MiB', 'peak RSS MiB', 'KiB/stream'],
    runs.map((run) => [
      String(run.streams),
      run.path,
      formatNumber(run.connectS, 1),
      String(run.listenOverflows),
      String(run.completed),
      String(run.errors),
      formatNumber(run.ttfbP99Ms, 1),
      formatNumber(run.gapP50Ms, 1),
      formatNumber(run.gapP99Ms, 1),
      formatNumber(run.plateauGapP99Ms, 1),
      formatNumber(run.plateauS, 1),
      formatNumber(run.cpuCores === undefined ? undefined : run.cpuCores * 100, 0),
      formatNumber(run.cpuUsPerChunk, 2),
      formatNumber(run.loadSideCores, 2),
      formatNumber(run.otherWorkCores, 2),
      formatNumber(run.idleRssBytes, 0, '—', mib),
      formatNumber(run.peakRssBytes, 0, '—', mib),
      formatNumber(run.rssPerStreamBytes, 1, '—', 1024),
    ]),
  );
}

/** Each gateway against the floor at the same N. */
export function streamsComparisonTable(runs: readonly StreamsRun[]): string {
  const rows: string[][] = [];
  for (const run of runs.filter((candidate) => candidate.path !== floorPath)) {
    const floor = floorRun(runs, run.streams);
    if (floor === undefined) continue;
    rows.push([
      String(run.streams),
      run.path,
      formatTimes(ratio(run.cpuUsPerChunk, floor.cpuUsPerChunk)),
      formatSigned(run.gapP99Ms - floor.gapP99Ms, 2),
      formatSigned(difference(run.plateauGapP99Ms, floor.plateauGapP99Ms), 2),
      formatSigned(run.ttfbP99Ms - floor.ttfbP99Ms, 2),
    ]);
  }
  return formatTable(['streams', 'path', 'CPU/chunk × floor', 'added gap p99 ms', 'added plateau gap p99 ms', 'added TTFB p99 ms'], rows);
}

/** Issue 25's stream targets at each N, for the working tree's gateway and the baseline's. */
export function streamsTargets(runs: readonly StreamsRun[]): TargetRow[] {
  const rows: TargetRow[] = [];
  for (const streams of [...new Set(runs.map((run) => run.streams))]) {
    const floor = floorRun(runs, streams);
    const atN = runs.filter((run) => run.streams === streams && run.path !== floorPath);
    const row = (target: string, goal: string, figure: (run: StreamsRun) => TargetFigure | undefined): TargetRow => {
      const entry: TargetRow = { target: `${streams} streams: ${target}`, goal };
      for (const run of atN) {
        const value = figure(run);
        if (value !== undefined) entry[run.build] = value;
      }
      return entry;
    };
    rows.push(
      row('errors (gateway + floor)', '0', (run) => {
        const errors = run.errors + (floor?.errors ?? 0);
        return { value: errors, text: `${run.errors} + ${floor?.errors ?? '—'}`, pass: errors === 0 };
      }),
      row('CPU per chunk: gateway ÷ floor', `≤ ${streamCpuGoal}×`, (run) => {
        const value = ratio(run.cpuUsPerChunk, floor?.cpuUsPerChunk);
        return value === undefined ? undefined : { value, text: formatTimes(value), pass: value <= streamCpuGoal };
      }),
      row('RSS per open stream above idle', `≤ ${streamRssGoalBytes / 1024} KiB`, (run) =>
        run.rssPerStreamBytes === undefined ? undefined : { value: run.rssPerStreamBytes, text: `${formatNumber(run.rssPerStreamBytes, 1, '—', 1024)} KiB`, pass: run.rssPerStreamBytes <= streamRssGoalBytes },
      ),
      // Judged over the plateau: during the ramp the server is also opening streams (bench/README.md).
      row('added inter-chunk gap p99 over the plateau: gateway − floor', `≤ ${streamAddedGapGoalMs} ms`, (run) => {
        const value = difference(run.plateauGapP99Ms, floor?.plateauGapP99Ms);
        return value === undefined ? undefined : { value, text: `${formatSigned(value, 2)} ms`, pass: value <= streamAddedGapGoalMs };
      }),
    );
  }
  return rows.filter((row) => row.working !== undefined || row.baseline !== undefined);
}

function floorRun(runs: readonly StreamsRun[], streams: number): StreamsRun | undefined {
  return runs.find((run) => run.streams === streams && run.path === floorPath);
}

function difference(value: number | undefined, floor: number | undefined): number | undefined {
  return value === undefined || floor === undefined ? undefined : value - floor;
}

function ratio(value: number | undefined, floor: number | undefined): number | undefined {
  return value === undefined || floor === undefined || floor <= 0 ? undefined : value / floor;
}
