/**
 * Issue 25's targets for the request path, judged for the working tree's gateway, its translated
 * path (a Chat caller to an Anthropic-wire target) and, when a baseline was measured, for the
 * baseline's gateway too, each against the floor of the same rounds.
 */
import { formatTable } from '../src/cli/format-table.js';
import type { PathMeasurement } from './measure.js';
import {
  cpuPerEvent,
  floorPath,
  formatSigned,
  formatTimes,
  marginalInRound,
  medianDifference,
  medianOverRounds,
  peakRss,
  perRound,
  type RoundFigure,
  type ThroughputResults,
} from './report.js';

/** One build's figure for one target. */
export interface TargetFigure {
  /** The number judged (a ratio, µs, ms or bytes, as the target says), for whoever reads the JSON. */
  value: number;
  text: string;
  pass: boolean;
}

export interface TargetRow {
  target: string;
  goal: string;
  working?: TargetFigure;
  baseline?: TargetFigure;
  translated?: TargetFigure;
}

const cpuPerRequestGoal = 2.5;
const throughputGoal = 0.4;
const perEventGoalUs = 2;
const addedP99GoalMs = 1;
const redisGoal = 1.2;
const memoryGoal = { timesFloor: 1.5, plusBytes: 100 * 1024 * 1024 };

/** The targets, for the working tree's gateways (`gateway`, `gateway-redis`, `gateway-translated`) and the baseline's (`…@label`). */
export function throughputTargets(results: ThroughputResults): TargetRow[] {
  const builds: { gateway: string; redis: string | undefined; side: 'working' | 'baseline' | 'translated' }[] = [{ gateway: 'gateway', redis: 'gateway-redis', side: 'working' }];
  if (results.baselineLabel !== undefined) builds.push({ gateway: `gateway@${results.baselineLabel}`, redis: `gateway-redis@${results.baselineLabel}`, side: 'baseline' });
  builds.push({ gateway: 'gateway-translated', redis: undefined, side: 'translated' });
  const rows: TargetRow[] = [
    { target: 'CPU per request, non-streaming: gateway ÷ floor', goal: `≤ ${cpuPerRequestGoal}×` },
    { target: 'requests/s, non-streaming: gateway ÷ floor', goal: `≥ ${throughputGoal}×` },
    { target: `CPU per event, ${results.events['streaming-64'] ?? '?'}-event stream: gateway − floor`, goal: `≤ +${perEventGoalUs} µs` },
    { target: 'CPU per extra event (short → long stream): gateway − floor', goal: `≤ +${perEventGoalUs} µs` },
    { target: 'added p99 at 1 connection: gateway − floor', goal: `≤ ${addedP99GoalMs} ms` },
    { target: 'CPU per request, non-streaming: Redis state ÷ memory state', goal: `≤ ${redisGoal}×` },
    { target: 'peak RSS: gateway against the floor', goal: `≤ ${memoryGoal.timesFloor} × floor + 100 MiB` },
  ];
  for (const { gateway, redis, side } of builds) {
    const figures = [
      ratioFigure(medianOverRounds(results, versusFloor(results, 'non-streaming', gateway, (run) => run.cpuUsPerRequest)), (value) => value <= cpuPerRequestGoal),
      ratioFigure(medianOverRounds(results, versusFloor(results, 'non-streaming', gateway, (run) => run.requestsPerSecond)), (value) => value >= throughputGoal),
      microsFigure(medianDifference(results, perEventIn(results, gateway), perEventIn(results, floorPath))),
      microsFigure(medianDifference(results, (round) => marginalInRound(results, round, gateway), (round) => marginalInRound(results, round, floorPath))),
      addedP99Figure(results, gateway),
      redis === undefined
        ? undefined
        : ratioFigure(medianOverRounds(results, perRound(results, 'non-streaming', [redis, gateway], (inRedis, inMemory) => inRedis.cpuUsPerRequest / inMemory.cpuUsPerRequest)), (value) => value <= redisGoal),
      memoryFigure(peakRss(results, gateway), peakRss(results, floorPath)),
    ];
    figures.forEach((figure, index) => {
      if (figure !== undefined) rows[index]![side] = figure;
    });
  }
  return rows.filter((row) => row.working !== undefined || row.baseline !== undefined || row.translated !== undefined);
}

export function targetTable(rows: readonly TargetRow[], baselineLabel: string | undefined): string {
  const verdict = (figure: TargetFigure | undefined) => (figure === undefined ? '—' : figure.pass ? 'PASS' : 'MISS');
  const translated = rows.some((row) => row.translated !== undefined);
  const header = ['target', 'goal', 'working tree', 'verdict'];
  if (baselineLabel !== undefined) header.push(baselineLabel, 'verdict', `working ÷ ${baselineLabel}`);
  if (translated) header.push('translated (Chat → Anthropic)', 'verdict');
  return formatTable(
    header,
    rows.map((row) => {
      const cells = [row.target, row.goal, row.working?.text ?? '—', verdict(row.working)];
      if (baselineLabel !== undefined) cells.push(row.baseline?.text ?? '—', verdict(row.baseline), workingOverBaseline(row));
      if (translated) cells.push(row.translated?.text ?? '—', verdict(row.translated));
      return cells;
    }),
  );
}

/** The working tree's figure ÷ the baseline's: below 1 is better for costs, above 1 for requests/s. */
function workingOverBaseline(row: TargetRow): string {
  if (row.working === undefined || row.baseline === undefined || row.working.value <= 0 || row.baseline.value <= 0) return '—';
  return formatTimes(row.working.value / row.baseline.value);
}

function versusFloor(results: ThroughputResults, scenario: 'non-streaming', path: string, read: (run: PathMeasurement) => number): RoundFigure {
  return perRound(results, scenario, [path, floorPath], (own, floor) => read(own) / read(floor));
}

function perEventIn(results: ThroughputResults, path: string): RoundFigure {
  return perRound(results, 'streaming-64', [path], (run) => cpuPerEvent(results, 'streaming-64', run));
}

function ratioFigure(value: number | undefined, pass: (value: number) => boolean): TargetFigure | undefined {
  return value === undefined ? undefined : { value, text: formatTimes(value), pass: pass(value) };
}

function microsFigure(value: number | undefined): TargetFigure | undefined {
  return value === undefined ? undefined : { value, text: `${formatSigned(value, 2)} µs`, pass: value <= perEventGoalUs };
}

function addedP99Figure(results: ThroughputResults, gateway: string): TargetFigure | undefined {
  const value = medianOverRounds(results, perRound(results, 'unloaded', [gateway, floorPath], (own, floor) => own.latencyP99Ms - floor.latencyP99Ms));
  return value === undefined ? undefined : { value, text: `${formatSigned(value, 2)} ms`, pass: value <= addedP99GoalMs };
}

function memoryFigure(peak: number | undefined, floorPeak: number | undefined): TargetFigure | undefined {
  if (peak === undefined || floorPeak === undefined) return undefined;
  const limit = memoryGoal.timesFloor * floorPeak + memoryGoal.plusBytes;
  const mib = (bytes: number) => (bytes / (1024 * 1024)).toFixed(0);
  return { value: peak, text: `${mib(peak)} MiB (${(peak / floorPeak).toFixed(2)}× floor; limit ${mib(limit)} MiB)`, pass: peak <= limit };
}
