/**
 * The default mode: every path (direct, the floor, each build's gateways) verified, then
 * measured in rounds — in each round every scenario through every path, one load at a time, the
 * paths' order reversed every other round (A B, B A, …) so neither side always goes first.
 */
import { startServerSet, type GatewayBuild, type ServerSet } from './bench-servers.js';
import type { ChildServer } from './child-server.js';
import type { CpuLayout } from './cpu-layout.js';
import { BenchAbort, measurePath, type BenchPath } from './measure.js';
import type { BenchOptions } from './options.js';
import { roundSummary, type ThroughputResults } from './report.js';
import { pathKinds, scenarios } from './scenarios.js';
import { verifyPath } from './verify.js';

export interface ThroughputSession {
  set: ServerSet;
  results: ThroughputResults;
}

export async function startThroughputSession(
  options: BenchOptions,
  layout: CpuLayout,
  mock: ChildServer,
  builds: readonly GatewayBuild[],
  profileFlags: readonly string[],
): Promise<ThroughputSession> {
  console.log('starting the bare proxy and the gateways (one process each)…');
  const set = await startServerSet({
    layout,
    mock,
    answers: scenarios.map((scenario) => scenario.answer),
    kinds: pathKinds,
    builds,
    profileFlags,
    pruneBacklog: options.pruneBacklog,
  });
  const baseline = builds.find((build) => build.build === 'baseline');
  const results: ThroughputResults = {
    paths: set.paths.map(({ name, kind, build }) => ({ name, kind, build })),
    ...(baseline === undefined ? {} : { baselineLabel: baseline.label }),
    rounds: options.rounds,
    connections: options.connections,
    events: {},
    runs: [],
    discarded: [],
  };
  return { set, results };
}

/** One request per path and scenario must come back complete before anything is measured; counts the mock's events per stream. */
export async function verifyAllPaths(session: ThroughputSession): Promise<void> {
  const failures: string[] = [];
  for (const scenario of scenarios.filter((candidate) => candidate.load === 'loaded')) {
    for (const path of session.set.paths) {
      const { problems, events } = await verifyPath(path.url, path.kind, scenario.answer, scenario.stream, path.headers);
      for (const problem of problems) failures.push(`${scenario.name} via ${path.name}: ${problem}`);
      if (path.kind === 'direct' && scenario.stream) session.results.events[scenario.name] = events;
    }
  }
  if (failures.length > 0) throw new BenchAbort(`verification failed, nothing was measured:\n  ${failures.join('\n  ')}`);
  console.log('verified: every path answers the full mock text, streams as SSE ending in data: [DONE]');
}

export async function measureRounds(session: ThroughputSession, options: BenchOptions, mock: ChildServer): Promise<void> {
  const { set, results } = session;
  const perRound = scenarios.length * set.paths.length;
  const total = perRound * options.rounds;
  console.log(`measuring ${options.rounds} round(s) of ${perRound} runs, each ${options.warmupS} s warm-up + ${options.durationS} s: about ${Math.ceil((total * (options.warmupS + options.durationS)) / 60)} min`);
  let step = 0;
  for (let round = 1; round <= options.rounds; round++) {
    const order: BenchPath[] = round % 2 === 1 ? set.paths : [...set.paths].reverse();
    for (const scenario of scenarios) {
      for (const path of order) {
        step += 1;
        const connections = scenario.load === 'loaded' ? options.connections : 1;
        const spec = { path, scenario, connections, warmupS: options.warmupS, durationS: options.durationS, mock: { name: mock.name, pid: mock.pid } };
        let measurement;
        try {
          measurement = await measurePath(spec);
        } catch (error) {
          if (!(error instanceof BenchAbort)) throw error;
          // A run lost to a stall (on a shared machine, or the gateway's own) costs the whole bench
          // only if it happens twice in a row; the first is kept in the results, not hidden.
          console.log(`*** [${step}/${total}] discarded, measuring it again: ${error.message}`);
          results.discarded.push({ round, scenario: scenario.name, path: path.name, problem: error.message });
          measurement = await measurePath(spec);
        }
        results.runs.push({ round, scenario: scenario.name, path: path.name, measurement });
        console.log(
          `[${step}/${total}] ${scenario.name} via ${path.name}, ${connections} conn: ${measurement.requestsPerSecond.toFixed(0)} req/s, p50 ${measurement.latencyP50Ms.toFixed(2)} ms, p99 ${measurement.latencyP99Ms.toFixed(2)} ms, CPU ${measurement.cpuUsPerRequest.toFixed(0)} µs/req (${measurement.cpuCores.toFixed(2)} cores), others ${measurement.otherWorkCores.toFixed(2)} cores`,
        );
      }
    }
    console.log(roundSummary(results, round));
  }
}
