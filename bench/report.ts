import { formatTable } from '../src/cli/format-table.js';
import type { Measurement } from './load.js';
import { pathNames, scenarioNames, type PathName, type ScenarioName } from './scenarios.js';

export interface ThroughputRun {
  scenario: ScenarioName;
  path: PathName;
  measurement: Measurement;
}

export interface LatencyRun {
  path: PathName;
  measurement: Measurement;
}

/** A gateway against one baseline, in one scenario: the memory-state gateway against the Node hops, the Redis-state one against it. */
export interface Comparison {
  scenario: ScenarioName | 'unloaded';
  path: 'gateway' | 'gateway-redis';
  baseline: 'bare-proxy' | 'direct' | 'gateway';
  /** Gateway requests/s divided by the baseline's. */
  throughputRatio: number;
  /** Gateway p50 minus the baseline's: the latency the gateway adds. */
  addedP50Ms: number;
  addedP99Ms: number;
}

export interface TargetCheck {
  name: string;
  /** The figure as a number (ms or a 0..1 ratio), for whoever reads latest.json. */
  value: number;
  measured: string;
  goal: string;
  pass: boolean;
}

/** Added latency the gateway may cost over the bare proxy, unloaded, at p50. */
export const addedP50BudgetMs = 2;
/** Share of the bare proxy's throughput the gateway must keep at full concurrency. */
export const throughputShareGoal = 0.5;
/** Share of the memory-state gateway's throughput the Redis-state gateway must keep. */
export const redisThroughputShareGoal = 0.85;
/** Latency the Redis round trips may add to the memory-state gateway, unloaded, at p50. */
export const redisAddedP50BudgetMs = 0.3;

export function compare(
  gateway: Measurement,
  baseline: Measurement,
  scenario: Comparison['scenario'],
  baselineName: Comparison['baseline'],
  path: Comparison['path'] = 'gateway',
): Comparison {
  return {
    scenario,
    path,
    baseline: baselineName,
    throughputRatio: gateway.requestsPerSecond / baseline.requestsPerSecond,
    addedP50Ms: gateway.latencyP50Ms - baseline.latencyP50Ms,
    addedP99Ms: gateway.latencyP99Ms - baseline.latencyP99Ms,
  };
}

/** Every gateway comparison the report prints: each scenario plus the unloaded run, against both baselines. */
export function allComparisons(throughput: readonly ThroughputRun[], latency: readonly LatencyRun[]): Comparison[] {
  const comparisons: Comparison[] = [];
  for (const scenario of scenarioNames) {
    const find = (path: PathName) => throughput.find((run) => run.scenario === scenario && run.path === path)?.measurement;
    addComparisons(comparisons, scenario, find);
  }
  addComparisons(comparisons, 'unloaded', (path) => latency.find((run) => run.path === path)?.measurement);
  return comparisons;
}

function addComparisons(into: Comparison[], scenario: Comparison['scenario'], find: (path: PathName) => Measurement | undefined): void {
  const gateway = find('gateway');
  if (!gateway) return;
  for (const baseline of ['bare-proxy', 'direct'] as const) {
    const measured = find(baseline);
    if (measured) into.push(compare(gateway, measured, scenario, baseline));
  }
  const withRedis = find('gateway-redis');
  if (withRedis) into.push(compare(withRedis, gateway, scenario, 'gateway', 'gateway-redis'));
}

export function targetChecks(comparisons: readonly Comparison[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const unloaded = comparisons.find((comparison) => comparison.scenario === 'unloaded' && comparison.baseline === 'bare-proxy');
  if (unloaded) {
    checks.push({
      name: 'added p50 vs bare proxy, 1 connection',
      value: unloaded.addedP50Ms,
      measured: `${formatMs(unloaded.addedP50Ms)} ms`,
      goal: `<= ${addedP50BudgetMs} ms`,
      pass: unloaded.addedP50Ms <= addedP50BudgetMs,
    });
  }
  for (const scenario of scenarioNames) {
    const loaded = comparisons.find((comparison) => comparison.scenario === scenario && comparison.baseline === 'bare-proxy');
    if (!loaded) continue;
    checks.push({
      name: `throughput vs bare proxy, ${scenario}`,
      value: loaded.throughputRatio,
      measured: formatPercent(loaded.throughputRatio),
      goal: `>= ${formatPercent(throughputShareGoal)}`,
      pass: loaded.throughputRatio >= throughputShareGoal,
    });
  }
  const redisUnloaded = comparisons.find((comparison) => comparison.scenario === 'unloaded' && comparison.path === 'gateway-redis');
  if (redisUnloaded) {
    checks.push({
      name: 'added p50 with Redis state vs memory state, 1 connection',
      value: redisUnloaded.addedP50Ms,
      measured: `${formatSignedMs(redisUnloaded.addedP50Ms)} ms`,
      goal: `<= +${formatMs(redisAddedP50BudgetMs)} ms`,
      pass: redisUnloaded.addedP50Ms <= redisAddedP50BudgetMs,
    });
  }
  for (const scenario of scenarioNames) {
    const loaded = comparisons.find((comparison) => comparison.scenario === scenario && comparison.path === 'gateway-redis');
    if (!loaded) continue;
    checks.push({
      name: `throughput with Redis state vs memory state, ${scenario}`,
      value: loaded.throughputRatio,
      measured: formatPercent(loaded.throughputRatio),
      goal: `>= ${formatPercent(redisThroughputShareGoal)}`,
      pass: loaded.throughputRatio >= redisThroughputShareGoal,
    });
  }
  return checks;
}

export function throughputTable(runs: readonly ThroughputRun[]): string {
  const ordered = scenarioNames.flatMap((scenario) =>
    pathNames.flatMap((path) => runs.filter((run) => run.scenario === scenario && run.path === path)),
  );
  return formatTable(
    ['scenario', 'path', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx'],
    ordered.map(({ scenario, path, measurement }) => [scenario, path, ...measurementCells(measurement)]),
  );
}

export function latencyTable(runs: readonly LatencyRun[]): string {
  return formatTable(
    ['path', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx'],
    runs.map(({ path, measurement }) => [path, ...measurementCells(measurement)]),
  );
}

export function comparisonTable(comparisons: readonly Comparison[]): string {
  return formatTable(
    ['scenario', 'path', 'vs', 'throughput ratio', 'added p50 ms', 'added p99 ms'],
    comparisons.map((comparison) => [
      comparison.scenario,
      comparison.path,
      comparison.baseline,
      formatPercent(comparison.throughputRatio),
      formatSignedMs(comparison.addedP50Ms),
      formatSignedMs(comparison.addedP99Ms),
    ]),
  );
}

export function targetTable(checks: readonly TargetCheck[]): string {
  return formatTable(
    ['target', 'measured', 'goal', 'verdict'],
    checks.map((check) => [check.name, check.measured, check.goal, check.pass ? 'PASS' : 'MISS']),
  );
}

function measurementCells(measurement: Measurement): string[] {
  return [
    measurement.requestsPerSecond.toFixed(0),
    formatMs(measurement.latencyP50Ms),
    formatMs(measurement.latencyP99Ms),
    String(measurement.errors),
    String(measurement.non2xx),
  ];
}

export function formatMs(valueMs: number): string {
  return valueMs.toFixed(2);
}

function formatSignedMs(valueMs: number): string {
  return `${valueMs >= 0 ? '+' : ''}${formatMs(valueMs)}`;
}

function formatPercent(ratio: number): string {
  return `${(ratio * 100).toFixed(1)}%`;
}
