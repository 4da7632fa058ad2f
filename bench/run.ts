/**
 * `npm run bench`: the same mock provider reached through a bare Node proxy (the floor) and
 * through Switchyard — keyed, SQLite file store, state in memory or in Redis — each server in its
 * own process, pinned to its own CPU, the load generator in this one; CPU per request read from
 * /proc. With `--baseline REF` the same gateways built from REF are measured alternately with
 * the working tree's; with `--streams N` thousands of slow streams are held open instead.
 * Prints tables and targets, writes the figures as JSON.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { buildBaseline, existingBaseline, type BaselineBuild } from './baseline-build.js';
import type { GatewayBuild, ServerSet } from './bench-servers.js';
import { startChildServer, stopAllChildServers, type ChildServer } from './child-server.js';
import { cleanUpAll } from './cleanup.js';
import { chooseCpuLayout, type CpuLayout } from './cpu-layout.js';
import { BenchAbort } from './measure.js';
import { parseBenchOptions, usage, type BenchOptions } from './options.js';
import { hotFunctionTable, hottestFunctions, type HotFunction } from './profile-summary.js';
import { baselineTable, floorComparisonTable, measurementTable, memoryTable, perEventTable, summarise, type ThroughputResults } from './report.js';
import { expiredRecordsLeft } from './seed-expired-records.js';
import { checkOpenFileLimit, runStreamsMode, streamAnswer, type StreamsRun } from './streams-mode.js';
import { streamsComparisonTable, streamsTable, streamsTargets } from './streams-report.js';
import { targetTable, throughputTargets } from './targets.js';
import { measureRounds, startThroughputSession, verifyAllPaths } from './throughput-mode.js';
import { median } from './silent-primary.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const resultsDirectory = join(repositoryRoot, 'bench', 'results');
const workingCli = join(repositoryRoot, 'dist', 'src', 'cli', 'main.js');
// Counted before the bench pins itself: the process's own CPU count shrinks with its affinity.
const cpuCount = cpus().length;
const hotFunctionCount = 25;
const busySampleMs = 1_000;
// Above this share of busy CPU the machine is doing something else worth mentioning.
const busyShareWarning = 0.2;

/** What every results file says about where and how it was measured. */
interface RunContext {
  options: BenchOptions;
  layout: CpuLayout;
  busyShareAtStart: number;
  baseline?: { ref: string; label: string };
}

async function main(): Promise<void> {
  const parsed = parseBenchOptions(process.argv.slice(2));
  if (parsed === 'help') {
    console.log(usage);
    return;
  }
  const options = parsed;
  if (options.streams.length > 0) checkOpenFileLimit(options.streams);
  const busyShareAtStart = await machineBusyShare();
  const layout = chooseCpuLayout(options.pin);
  console.log(`machine: ${cpuCount} CPUs, node ${process.version}; ${layout.description}`);
  console.log(`before starting, ${(busyShareAtStart * 100).toFixed(0)}% of the machine's CPU was busy with other work${busyShareAtStart > busyShareWarning ? ': it will skew the figures (each run prints what others used meanwhile)' : ''}`);

  let baseline: BaselineBuild | undefined;
  let mock: ChildServer | undefined;
  let set: ServerSet | undefined;
  const profileDirectory = options.profileGateway ? mkdtempSync(join(tmpdir(), 'switchyard-bench-profile-')) : undefined;
  try {
    if (options.baseline !== undefined) baseline = await buildBaseline(options.baseline, repositoryRoot);
    else if (options.baselineDir !== undefined) baseline = existingBaseline(options.baselineDir);
    const builds: GatewayBuild[] = [{ build: 'working', label: 'working tree', cliPath: workingCli }];
    if (baseline !== undefined) builds.push({ build: 'baseline', label: baseline.label, cliPath: baseline.cliPath });
    const context: RunContext = { options, layout, busyShareAtStart, ...(baseline === undefined ? {} : { baseline: { ref: options.baseline ?? options.baselineDir!, label: baseline.label } }) };

    mock = await startChildServer('mock provider', 'mock-server.js', [], [], layout.loadCpus);
    if (options.streams.length > 0) {
      const runs = await runStreamsMode(options, layout, mock, builds);
      reportStreams(context, runs);
      return;
    }
    const profileFlags = profileDirectory === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDirectory}`];
    const session = await startThroughputSession(options, layout, mock, builds, profileFlags);
    set = session.set;
    if (options.profileGateway) console.log('the working tree\'s gateway runs under --cpu-prof: its figures are slowed by the profiler');
    await verifyAllPaths(session);
    await measureRounds(session, options, mock);
    // Stop before reporting: the gateway writes its CPU profile as it exits.
    await set.stop();
    const hotFunctions = profileDirectory === undefined ? undefined : summariseProfile(profileDirectory);
    const pruned = options.pruneBacklog > 0 && set.workingStorePath !== undefined ? options.pruneBacklog - expiredRecordsLeft(set.workingStorePath) : undefined;
    reportThroughput(context, session.results, hotFunctions, pruned);
  } finally {
    await stopAllChildServers();
    await set?.stop();
    baseline?.remove();
    if (profileDirectory !== undefined) rmSync(profileDirectory, { recursive: true, force: true });
  }
}

function reportThroughput(context: RunContext, results: ThroughputResults, hotFunctions: HotFunction[] | undefined, pruned: number | undefined): void {
  const { options } = context;
  const summary = summarise(results);
  const targets = throughputTargets(results);
  const rounds = `${results.rounds === 1 ? 'one round' : `median of ${results.rounds} rounds`}`;
  const sections: [string, string][] = [
    [`Throughput and CPU per request (${rounds}; ${options.connections} connections, unloaded: 1; ${options.durationS} s each)`, measurementTable(summary)],
    ['Memory per server (the hop\'s process; RSS after its first warm-up, peak over all its runs)', memoryTable(results)],
    ['Streaming: CPU per event (CPU per request ÷ SSE events) and per extra event (between the two stream lengths)', perEventTable(results)],
    ['Gateways against the floor (bare proxy), the median of per-round ratios and differences', floorComparisonTable(results)],
  ];
  if (results.baselineLabel !== undefined) sections.push([`Working tree against ${context.baseline!.ref} (${results.baselineLabel}), round by round`, baselineTable(results)]);
  sections.push(['Targets (issue 25), against the floor of the same rounds', targetTable(targets, results.baselineLabel)]);
  if (hotFunctions) sections.push(["Working tree's gateway CPU profile: top self time (busy time only)", hotFunctionTable(hotFunctions)]);
  const others = results.runs.map((run) => run.measurement.otherWorkCores);
  const machine = `machine: ${cpuCount} CPUs; ${context.layout.description}; other work used ${(context.busyShareAtStart * 100).toFixed(0)}% of the machine before the start, and during the runs a median ${median(others).toFixed(2)} cores (most ${Math.max(...others).toFixed(2)})`;
  printSections(sections, machine);
  if (results.discarded.length > 0) console.log(`*** ${results.discarded.length} run(s) failed and were measured again: ${results.discarded.map((run) => `${run.scenario} via ${run.path} in round ${run.round}`).join('; ')} (the problems are in the JSON)`);
  if (pruned !== undefined) console.log(`pruning: ${options.pruneBacklog} expired records seeded, ${pruned} pruned while the load ran, ${options.pruneBacklog - pruned} left`);
  writeResults(options.jsonFile ?? join(resultsDirectory, 'latest.json'), {
    ...resultsHeader(context),
    summary,
    results,
    targets,
    ...(hotFunctions ? { gatewayHotFunctions: hotFunctions } : {}),
    ...(pruned === undefined ? {} : { pruned }),
  });
}

function reportStreams(context: RunContext, runs: StreamsRun[]): void {
  const { options } = context;
  const answer = streamAnswer(options);
  const targets = streamsTargets(runs);
  const others = runs.flatMap((run) => (run.otherWorkCores === undefined ? [] : [run.otherWorkCores]));
  printSections(
    [
      [`Concurrent streams: each ${answer.chunks} chunks ${answer.chunkMs} ms apart; CPU and KiB/stream over the plateau (every stream open)`, streamsTable(runs)],
      ['Gateways against the floor at the same N', streamsComparisonTable(runs)],
      ['Targets (issue 25)', targetTable(targets, context.baseline?.label)],
    ],
    `machine: ${cpuCount} CPUs; ${context.layout.description}; other work used ${(context.busyShareAtStart * 100).toFixed(0)}% of the machine before the start, and during the plateaus a median ${others.length === 0 ? '—' : median(others).toFixed(2)} cores`,
  );
  writeResults(options.jsonFile ?? join(resultsDirectory, 'latest-streams.json'), { ...resultsHeader(context), answer, runs, targets });
}

function printSections(sections: readonly [string, string][], machine: string): void {
  console.log(`\n${sections.map(([title, table]) => `== ${title}\n${table}\n`).join('\n')}\n${machine}`);
}

function resultsHeader(context: RunContext): Record<string, unknown> {
  return {
    generatedAt: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpuCount,
    layout: context.layout,
    otherCpuBusyShareAtStart: context.busyShareAtStart,
    options: context.options,
    ...(context.baseline === undefined ? {} : { baseline: context.baseline }),
  };
}

function writeResults(file: string, results: Record<string, unknown>): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`results written to ${file}`);
}

/**
 * The share of all CPUs busy over a short sample, taken before the bench starts anything: other
 * work on the machine skews what the bench measures; say so up front rather than let a busy
 * machine pass for a slow gateway.
 */
async function machineBusyShare(): Promise<number> {
  const totals = () =>
    cpus().reduce(
      (sum, cpu) => {
        const { user, nice, sys, irq, idle } = cpu.times;
        return { busyMs: sum.busyMs + user + nice + sys + irq, allMs: sum.allMs + user + nice + sys + irq + idle };
      },
      { busyMs: 0, allMs: 0 },
    );
  const before = totals();
  await sleep(busySampleMs);
  const after = totals();
  const allMs = after.allMs - before.allMs;
  return allMs <= 0 ? 0 : (after.busyMs - before.busyMs) / allMs;
}

function summariseProfile(profileDirectory: string): HotFunction[] {
  // CPU.<date>.<time>.<pid>.<thread id>.<n>.cpuprofile: the serving thread is 0; the store thread writes its own.
  const files = readdirSync(profileDirectory);
  const file = files.find((name) => /\.\d+\.0\.\d+\.cpuprofile$/.test(name));
  if (file === undefined) throw new BenchAbort(`the gateway wrote no CPU profile of its serving thread (did it exit cleanly?); found: ${files.join(', ') || 'nothing'}`);
  mkdirSync(resultsDirectory, { recursive: true });
  copyFileSync(join(profileDirectory, file), join(resultsDirectory, 'gateway.cpuprofile'));
  return hottestFunctions(join(profileDirectory, file), hotFunctionCount);
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    console.error(`\n${signal}: stopping the bench servers and removing what the bench made`);
    cleanUpAll();
    stopAllChildServers().finally(() => process.exit(130));
  });
}

main().then(
  () => {
    if (!interrupted) process.exitCode = 0;
  },
  (error: unknown) => {
    cleanUpAll();
    if (error instanceof BenchAbort) console.error(`\nbench aborted: ${error.message}`);
    else console.error(error);
    process.exitCode = 1;
  },
);
