/**
 * One throughput measurement of one path: a discarded warm-up, then a closed-loop autocannon run
 * with CPU time read from /proc before and after for every process that serves the path, and
 * for the machine as a whole, so that other people's work during the run shows beside it.
 */
import { performance } from 'node:perf_hooks';
import { problemsOf, runLoad, type Measurement } from './load.js';
import { machineCpu, processCpuUs, processMemory } from './proc-stats.js';
import { chatPath, requestBody, type PathKind, type Scenario } from './scenarios.js';

/** A failure that makes the figures meaningless: the bench stops and says why. */
export class BenchAbort extends Error {}

export interface ProcessRef {
  name: string;
  pid: number;
}

/** One way to reach the mock, and the processes that serve it. */
export interface BenchPath {
  /** Its name in the tables: `gateway`, or `gateway@8a2fa5b` for the baseline's. */
  name: string;
  kind: PathKind;
  build: 'working' | 'baseline';
  url: string;
  /** Sent with every request (a gateway's virtual key). */
  headers: Record<string, string>;
  /** The hop, whose CPU per request is the path's figure (the mock itself for `direct`). */
  server: ProcessRef;
  /** A Redis-state gateway's redis-server, whose CPU is reported beside the hop's. */
  redis?: ProcessRef;
}

export interface PathMeasurement extends Measurement {
  /** The measured window, from before the load started to after it ended. */
  wallS: number;
  /** CPU the hop used in the window (all its threads) ÷ 2xx responses. */
  cpuUsPerRequest: number;
  /** The hop's CPU ÷ wall time: 1.0 is one core busy all the time. */
  cpuCores: number;
  mockCpuUsPerRequest: number;
  redisCpuUsPerRequest?: number;
  /** This process, the load generator: CPU ÷ wall time. */
  loadGeneratorCores: number;
  /** The rest of the machine's busy CPU meanwhile, in cores: work that is not the bench's. */
  otherWorkCores: number;
  /** The hop's resident memory when the measured window began, after the warm-up. */
  rssAfterWarmupBytes: number;
  /** The most the hop has ever been resident, read after the window. */
  peakRssBytes: number;
}

export interface MeasureSpec {
  path: BenchPath;
  scenario: Scenario;
  connections: number;
  warmupS: number;
  durationS: number;
  mock: ProcessRef;
}

interface CpuSnapshot {
  atMs: number;
  hopUs: number;
  mockUs: number;
  redisUs: number;
  loadGeneratorUs: number;
  machineBusyUs: number;
}

export async function measurePath(spec: MeasureSpec): Promise<PathMeasurement> {
  const { path, scenario } = spec;
  const what = `${scenario.name} via ${path.name}`;
  const load = {
    url: `${path.url}${chatPath}`,
    body: requestBody(path.kind, scenario.answer, scenario.stream),
    headers: path.headers,
    connections: spec.connections,
  };
  if (spec.warmupS > 0) assertClean(await runLoad({ ...load, durationS: spec.warmupS }), `${what} (warm-up)`);
  const rssAfterWarmupBytes = processMemory(path.server.pid).rssBytes;
  const before = snapshot(spec);
  const measurement = await runLoad({ ...load, durationS: spec.durationS });
  const after = snapshot(spec);
  const wallUs = (after.atMs - before.atMs) * 1000;
  const used = (key: keyof CpuSnapshot) => after[key] - before[key];
  const perResponse = (us: number) => us / measurement.responses;
  // For `direct` the mock is the hop: count it once.
  const oursUs = used('hopUs') + (path.server.pid === spec.mock.pid ? 0 : used('mockUs')) + used('redisUs') + used('loadGeneratorUs');
  // /proc counts in ticks, so a quiet machine can come out a tick below zero.
  const otherWorkCores = Math.max(0, (used('machineBusyUs') - oursUs) / wallUs);
  assertClean(measurement, `${what} (other work used ${otherWorkCores.toFixed(2)} cores meanwhile)`);
  return {
    ...measurement,
    wallS: wallUs / 1e6,
    cpuUsPerRequest: perResponse(used('hopUs')),
    cpuCores: used('hopUs') / wallUs,
    mockCpuUsPerRequest: perResponse(used('mockUs')),
    ...(path.redis ? { redisCpuUsPerRequest: perResponse(used('redisUs')) } : {}),
    loadGeneratorCores: used('loadGeneratorUs') / wallUs,
    otherWorkCores,
    rssAfterWarmupBytes,
    peakRssBytes: Math.max(rssAfterWarmupBytes, processMemory(path.server.pid).peakRssBytes),
  };
}

function snapshot(spec: MeasureSpec): CpuSnapshot {
  const { path, mock } = spec;
  const usage = process.cpuUsage();
  const hopUs = processCpuUs(path.server.pid);
  return {
    atMs: performance.now(),
    hopUs,
    mockUs: path.server.pid === mock.pid ? hopUs : processCpuUs(mock.pid),
    redisUs: path.redis ? processCpuUs(path.redis.pid) : 0,
    loadGeneratorUs: usage.user + usage.system,
    machineBusyUs: machineCpu().busyUs,
  };
}

function assertClean(measurement: Measurement, what: string): void {
  const problems = problemsOf(measurement);
  if (problems.length > 0) throw new BenchAbort(`${what}: ${problems.join('; ')}; the figures would be meaningless`);
}
