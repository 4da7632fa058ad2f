/**
 * `--streams N[,N…]`: for each N, fresh servers (so memory starts from idle), then for the floor
 * and each gateway N slow streams held open at once — the mock sends a chunk every `--chunk-ms`
 * for `--stream-s` — with the hop's CPU read over the plateau (every stream open) and its
 * resident memory sampled throughout.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServerSet, type GatewayBuild } from './bench-servers.js';
import type { ChildServer } from './child-server.js';
import type { CpuLayout } from './cpu-layout.js';
import { problemsOf, runLoad } from './load.js';
import { BenchAbort, type BenchPath } from './measure.js';
import type { BenchOptions } from './options.js';
import { listenOverflows, machineCpu, openFileLimits, processCpuUs, processMemory } from './proc-stats.js';
import { formatNumber } from './report.js';
import { chatPath, requestBody, scenarioNamed, type Answer } from './scenarios.js';
import { runStreamLoad } from './stream-load.js';
import { verifyPath } from './verify.js';

export interface StreamsRun {
  streams: number;
  path: string;
  build: 'working' | 'baseline';
  /** How long opening the N connections took, before any stream started. */
  connectS: number;
  connectFailures: number;
  /** Handshakes that found the accept queue full while connecting and streaming (machine-wide, but only the bench opens thousands). */
  listenOverflows: number;
  completed: number;
  errors: number;
  firstErrors: string[];
  ttfbP99Ms: number;
  gapP50Ms: number;
  gapP99Ms: number;
  /** The gap p99 over the plateau alone (see `StreamLoadResult`); what the gap target is judged on. */
  plateauGapP99Ms?: number;
  /** How long every stream was open at once; 0 when never (an error before the last one opened). */
  plateauS: number;
  /** The hop's CPU ÷ wall time over the plateau (1.0: one core). */
  cpuCores?: number;
  /** The hop's CPU over the plateau ÷ the SSE events the load generator received meanwhile. */
  cpuUsPerChunk?: number;
  /** The load generator's and the mock's CPU over the plateau, in cores: near 1 on one core, and the figures describe the load side. */
  loadSideCores?: number;
  otherWorkCores?: number;
  idleRssBytes: number;
  peakRssBytes: number;
  /** (The most resident during the plateau − idle) ÷ streams. */
  rssPerStreamBytes?: number;
}

const rssSampleMs = 200;
// Opening a connection costs the load generator ~0.5 ms of CPU here (and the hop and the mock
// theirs): open them no faster than this, or the first bytes measure the load side's queue.
const rampMsPerStream = 1;
const minRampMs = 1_000;
const settleMs = 500;
// File descriptors per stream on the busiest process (the bare proxy: one socket in, one out), plus headroom.
const descriptorsPerStream = 2;
const descriptorHeadroom = 1_024;
const warmupConnections = 32;
// A server that cannot keep up stretches every stream: give up on one only past four times its
// schedule and half a minute more, so a slow server shows in its gaps, not as errors.
const giveUpStreamLengths = 4;
const giveUpSlackMs = 30_000;

export function streamAnswer(options: BenchOptions): Answer {
  return { chunks: Math.max(1, Math.round((options.streamS * 1000) / options.chunkMs)), chunkMs: options.chunkMs };
}

/** Stops with a clear message when this shell's open-file limit cannot hold the streams. */
export function checkOpenFileLimit(streamCounts: readonly number[]): void {
  const needed = Math.max(...streamCounts) * descriptorsPerStream + descriptorHeadroom;
  const { soft, hard } = openFileLimits();
  if (soft >= needed) return;
  const raise = hard >= needed ? `raise it (the hard limit allows ${hard}): ulimit -n ${needed}` : `the hard limit is ${hard}: raise it as root (ulimit -Hn ${needed}; ulimit -n ${needed}) or in /etc/security/limits.conf`;
  throw new BenchAbort(`--streams ${Math.max(...streamCounts)} needs about ${needed} open files per process; this shell allows ${soft} (ulimit -n). ${raise}, then run the bench again`);
}

export async function runStreamsMode(options: BenchOptions, layout: CpuLayout, mock: ChildServer, builds: readonly GatewayBuild[]): Promise<StreamsRun[]> {
  const answer = streamAnswer(options);
  const warmup = scenarioNamed('streaming-64');
  const runs: StreamsRun[] = [];
  for (const streams of options.streams) {
    console.log(`\n${streams} streams: starting a fresh bare proxy and gateway(s)…`);
    const set = await startServerSet({
      layout,
      mock,
      answers: [answer, warmup.answer],
      kinds: ['bare-proxy', 'gateway'],
      builds,
      concurrency: streams + descriptorHeadroom,
    });
    try {
      for (const path of set.paths) {
        const { problems } = await verifyPath(path.url, path.kind, warmup.answer, true, path.headers);
        if (problems.length > 0) throw new BenchAbort(`${path.name}: ${problems.join('; ')}`);
      }
      for (const path of set.paths) {
        if (options.warmupS > 0) {
          const warm = await runLoad({ url: `${path.url}${chatPath}`, body: requestBody(path.kind, warmup.answer, true), headers: path.headers, connections: warmupConnections, durationS: options.warmupS });
          const problems = problemsOf(warm);
          if (problems.length > 0) throw new BenchAbort(`warm-up via ${path.name}: ${problems.join('; ')}`);
        }
        await sleep(settleMs);
        const run = await measureStreams(path, streams, answer, options, mock);
        runs.push(run);
        console.log(
          `  ${path.name}: ${streams} connections opened in ${run.connectS.toFixed(1)} s (${run.listenOverflows} accept-queue overflows${run.connectFailures > 0 ? `, ${run.connectFailures} failed` : ''}); ${run.completed}/${streams} complete, ${run.errors} errors, TTFB p99 ${run.ttfbP99Ms.toFixed(1)} ms, gap p99 ${run.gapP99Ms.toFixed(1)} ms (plateau ${formatNumber(run.plateauGapP99Ms, 1)} ms), CPU ${formatNumber(run.cpuUsPerChunk, 2)} µs/chunk, ${formatNumber(run.rssPerStreamBytes, 1, '—', 1024)} KiB/stream`,
        );
        for (const message of run.firstErrors) console.log(`    error: ${message}`);
      }
    } finally {
      await set.stop();
    }
  }
  return runs;
}

async function measureStreams(path: BenchPath, streams: number, answer: Answer, options: BenchOptions, mock: ChildServer): Promise<StreamsRun> {
  const pid = path.server.pid;
  const idleRssBytes = processMemory(pid).rssBytes;
  const samples: { atMs: number; rssBytes: number }[] = [];
  const sampler = setInterval(() => samples.push({ atMs: performance.now(), rssBytes: processMemory(pid).rssBytes }), rssSampleMs);
  const readCpu = () => {
    const usage = process.cpuUsage();
    return { atMs: performance.now(), hopUs: processCpuUs(pid), loadSideUs: usage.user + usage.system + processCpuUs(mock.pid), machineBusyUs: machineCpu().busyUs };
  };
  let plateauStart: ReturnType<typeof readCpu> | undefined;
  let plateauEnd: ReturnType<typeof readCpu> | undefined;
  const rampMs = rampFor(streams, options.streamS);
  console.log(`  ${path.name}: ${streams} streams over ${(rampMs / 1000).toFixed(2)} s, each ${answer.chunks} chunks ${answer.chunkMs} ms apart…`);
  const overflowsBefore = listenOverflows();
  let result;
  try {
    result = await runStreamLoad({
      url: `${path.url}${chatPath}`,
      body: requestBody(path.kind, answer, true),
      headers: path.headers,
      streams,
      rampMs,
      giveUpMs: rampMs + giveUpStreamLengths * answer.chunks * answer.chunkMs + giveUpSlackMs,
      onPlateauStart: () => (plateauStart = readCpu()),
      onPlateauEnd: () => (plateauEnd = readCpu()),
    });
  } finally {
    clearInterval(sampler);
  }
  const run: StreamsRun = {
    streams,
    path: path.name,
    build: path.build,
    connectS: result.connectS,
    connectFailures: result.connectFailures,
    listenOverflows: listenOverflows() - overflowsBefore,
    completed: result.completed,
    errors: result.errors,
    firstErrors: result.firstErrors,
    ttfbP99Ms: result.ttfbP99Ms,
    gapP50Ms: result.gapP50Ms,
    gapP99Ms: result.gapP99Ms,
    ...(result.plateauGapP99Ms === undefined ? {} : { plateauGapP99Ms: result.plateauGapP99Ms }),
    plateauS: 0,
    idleRssBytes,
    peakRssBytes: Math.max(idleRssBytes, ...samples.map((sample) => sample.rssBytes)),
  };
  if (plateauStart === undefined || plateauEnd === undefined || result.plateauEvents === undefined) return run;
  const [start, end] = [plateauStart, plateauEnd];
  const wallUs = (end.atMs - start.atMs) * 1000;
  const hopUs = end.hopUs - start.hopUs;
  const loadSideUs = end.loadSideUs - start.loadSideUs;
  const duringPlateau = samples.filter((sample) => sample.atMs >= start.atMs && sample.atMs <= end.atMs).map((sample) => sample.rssBytes);
  return {
    ...run,
    plateauS: wallUs / 1e6,
    cpuCores: hopUs / wallUs,
    cpuUsPerChunk: hopUs / result.plateauEvents,
    loadSideCores: loadSideUs / wallUs,
    otherWorkCores: Math.max(0, (end.machineBusyUs - start.machineBusyUs - hopUs - loadSideUs) / wallUs),
    ...(duringPlateau.length === 0 ? {} : { rssPerStreamBytes: (Math.max(...duringPlateau) - idleRssBytes) / streams }),
  };
}

/** How long to spread the streams' start over: a millisecond each (a second at least), at most a third of a stream, so two thirds are plateau. */
function rampFor(streams: number, streamS: number): number {
  return Math.round(Math.min((streamS * 1000) / 3, Math.max(minRampMs, streams * rampMsPerStream)));
}
