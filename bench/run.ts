/**
 * `npm run bench`: the same mock provider reached four ways (direct, through a bare Node proxy,
 * through Switchyard with state in memory, and with state in a redis-server the bench starts),
 * each server in its own process and the load generator in this one, measured one load at a
 * time. Prints tables and ratios, writes bench/results/latest.json.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REDIS_SERVER, startRedisServer, type RedisServer } from '../test/support/redis-process.js';
import { createBenchKey, gatewayState } from './bench-key.js';
import { startChildServer, stopAllChildServers, type ChildServer } from './child-server.js';
import { writeGatewayConfig, type BenchState, type GatewayConfigFile } from './gateway-config.js';
import { problemsOf, runLoad, type Measurement } from './load.js';
import { parseBenchOptions, usage, type BenchOptions } from './options.js';
import { hotFunctionTable, hottestFunctions, type HotFunction } from './profile-summary.js';
import {
  allComparisons,
  comparisonTable,
  latencyTable,
  targetChecks,
  targetTable,
  throughputTable,
  type LatencyRun,
  type ThroughputRun,
} from './report.js';
import { chatPath, contentChunks, pathNames, requestBody, scenarioNames, type PathName, type ScenarioName } from './scenarios.js';
import { expiredRecordsLeft, seedExpiredRecords } from './seed-expired-records.js';
import { verifyPath } from './verify.js';

const resultsDirectory = fileURLToPath(new URL('../../bench/results/', import.meta.url));
const hotFunctionCount = 25;
const busySampleMs = 1_000;
// Above this share of busy CPU the machine is doing something else worth mentioning.
const busyShareWarning = 0.2;

/** A failure that makes the figures meaningless: the bench stops and says why. */
class BenchAbort extends Error {}

interface Servers {
  /** Every path that runs; `gateway-redis` is missing when this machine has no redis-server. */
  urls: Partial<Record<PathName, string>>;
  /** The virtual key each gateway path sends. */
  headers: Partial<Record<PathName, Record<string, string>>>;
  children: ChildServer[];
  /** The memory-state gateway's config (its store is the one `--prune-backlog` seeds). */
  gatewayConfig: GatewayConfigFile;
  /** Stops what `startServers` started besides the children: the Redis-state gateway's config and its redis-server. */
  cleanUp(): Promise<void>;
}

/** The paths that run, in report order. */
function runningPaths(urls: Servers['urls']): PathName[] {
  return pathNames.filter((path) => urls[path] !== undefined);
}

async function main(): Promise<void> {
  const parsed = parseBenchOptions(process.argv.slice(2));
  if (parsed === 'help') {
    console.log(usage);
    return;
  }
  const options = parsed;
  const busyShareAtStart = await machineBusyShare();
  if (busyShareAtStart > busyShareWarning) {
    console.log(
      `warning: before starting, ${(busyShareAtStart * 100).toFixed(0)}% of ${availableParallelism()} CPUs were busy with other work; it will skew the figures`,
    );
  }
  const profileDirectory = options.profileGateway ? mkdtempSync(join(tmpdir(), 'switchyard-bench-profile-')) : undefined;
  let servers: Servers | undefined;
  try {
    servers = await startServers(options, profileDirectory);
    await verifyAllPaths(servers);
    const { throughput, latency } = await measureAll(servers, options);
    // Stop before reporting: the gateway writes its CPU profile as it exits.
    await Promise.all(servers.children.map((child) => child.stop()));
    const hotFunctions = profileDirectory === undefined ? undefined : summariseProfile(profileDirectory);
    report(options, busyShareAtStart, throughput, latency, hotFunctions);
    if (options.pruneBacklog > 0) {
      const left = expiredRecordsLeft(servers.gatewayConfig.storePath);
      console.log(`\npruning: ${options.pruneBacklog} expired records seeded, ${options.pruneBacklog - left} pruned while the load ran, ${left} left`);
    }
  } finally {
    await stopAllChildServers();
    await servers?.cleanUp();
    if (profileDirectory !== undefined) rmSync(profileDirectory, { recursive: true, force: true });
  }
}

async function startServers(
  options: BenchOptions,
  profileDirectory: string | undefined,
): Promise<Servers> {
  console.log('starting the mock provider, the bare proxy and the gateways (one process each)…');
  const mock = await startChildServer('mock provider', 'mock-server.js');
  const proxy = await startChildServer('bare proxy', 'bare-proxy.js', [mock.url]);
  const configs: GatewayConfigFile[] = [];
  let redis: RedisServer | undefined;
  const cleanUp = async () => {
    for (const config of configs) config.remove();
    await redis?.close();
  };
  try {
    const gatewayConfig = writeGatewayConfig(mock.url);
    configs.push(gatewayConfig);
    if (options.pruneBacklog > 0) {
      console.log(`seeding ${options.pruneBacklog} records past the retention, for the pruner to delete during the run…`);
      await seedExpiredRecords(gatewayConfig.storePath, options.pruneBacklog);
    }
    const profileFlags = profileDirectory === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDirectory}`];
    const gateway = await startChildServer('gateway', 'gateway-server.js', [gatewayConfig.file], profileFlags);
    if (options.profileGateway) console.log('the gateway runs under --cpu-prof: its figures are slowed by the profiler');
    const urls: Servers['urls'] = { direct: mock.url, 'bare-proxy': proxy.url, gateway: gateway.url };
    const headers: Servers['headers'] = { gateway: { authorization: `Bearer ${await createBenchKey(gateway.url)}` } };
    const children = [gateway, proxy, mock];
    if (REDIS_SERVER === undefined) {
      console.log('\n*** SKIPPING the gateway with state.kind: redis: redis-server is not installed (apt-get install -y redis-server). Only the memory-state gateway is measured. ***\n');
    } else {
      redis = await startRedisServer();
      const redisConfig = writeGatewayConfig(mock.url, { kind: 'redis', url: redis.url } satisfies BenchState);
      configs.push(redisConfig);
      const withRedis = await startChildServer('gateway (Redis state)', 'gateway-server.js', [redisConfig.file]);
      children.unshift(withRedis);
      // Measuring a gateway that fell back to local state would report memory figures as Redis ones.
      const state = await gatewayState(withRedis.url);
      if (state !== 'shared') throw new BenchAbort(`the Redis-state gateway says its state is "${state}", not "shared": is ${redis.url} answering?`);
      urls['gateway-redis'] = withRedis.url;
      headers['gateway-redis'] = { authorization: `Bearer ${await createBenchKey(withRedis.url)}` };
    }
    return { urls, headers, children, gatewayConfig, cleanUp };
  } catch (error) {
    await stopAllChildServers();
    await cleanUp();
    throw error;
  }
}

/** One request per path and scenario must come back complete before anything is measured. */
async function verifyAllPaths(servers: Servers): Promise<void> {
  const failures: string[] = [];
  for (const scenario of scenarioNames) {
    for (const path of runningPaths(servers.urls)) {
      const problems = await verifyPath(servers.urls[path]!, path, scenario, servers.headers[path]);
      for (const problem of problems) failures.push(`${scenario} via ${path}: ${problem}`);
    }
  }
  if (failures.length > 0) throw new BenchAbort(`verification failed, nothing was measured:\n  ${failures.join('\n  ')}`);
  console.log(`verified: every path answers the full ${contentChunks}-chunk text, streamed as SSE ending in data: [DONE]`);
}

async function measureAll(servers: Servers, options: BenchOptions): Promise<{ throughput: ThroughputRun[]; latency: LatencyRun[] }> {
  const paths = runningPaths(servers.urls);
  const totalSteps = scenarioNames.length * paths.length + paths.length;
  const perStepS = options.warmupS + options.durationS;
  console.log(`measuring ${totalSteps} runs of ${options.warmupS} s warm-up + ${options.durationS} s, about ${Math.ceil(totalSteps * perStepS)} s in all`);
  let step = 0;

  const throughput: ThroughputRun[] = [];
  for (const scenario of scenarioNames) {
    for (const path of paths) {
      step += 1;
      const measurement = await measure(servers, path, scenario, options.connections, options, `[${step}/${totalSteps}]`);
      throughput.push({ scenario, path, measurement });
    }
  }
  const latency: LatencyRun[] = [];
  for (const path of paths) {
    step += 1;
    const measurement = await measure(servers, path, 'non-streaming', 1, options, `[${step}/${totalSteps}]`);
    latency.push({ path, measurement });
  }
  return { throughput, latency };
}

async function measure(
  servers: Servers,
  path: PathName,
  scenario: ScenarioName,
  connections: number,
  options: BenchOptions,
  label: string,
): Promise<Measurement> {
  console.log(`${label} ${scenario} via ${path}, ${connections} connection${connections === 1 ? '' : 's'}: warm-up ${options.warmupS} s, measure ${options.durationS} s`);
  const spec = { url: `${servers.urls[path]!}${chatPath}`, body: requestBody(path, scenario), headers: servers.headers[path] ?? {}, connections };
  if (options.warmupS > 0) {
    const warmup = await runLoad({ ...spec, durationS: options.warmupS });
    assertClean(warmup, `${scenario} via ${path} (warm-up)`);
  }
  const measurement = await runLoad({ ...spec, durationS: options.durationS });
  assertClean(measurement, `${scenario} via ${path}`);
  console.log(
    `${' '.repeat(label.length)} ${measurement.requestsPerSecond.toFixed(0)} req/s, p50 ${measurement.latencyP50Ms.toFixed(2)} ms, p99 ${measurement.latencyP99Ms.toFixed(2)} ms`,
  );
  return measurement;
}

function assertClean(measurement: Measurement, what: string): void {
  const problems = problemsOf(measurement);
  if (problems.length > 0) throw new BenchAbort(`${what}: ${problems.join('; ')}; the figures would be meaningless`);
}

/**
 * The share of all CPUs busy over a short sample, taken before the bench starts anything. The
 * paths are measured one after another, so other work on the machine skews the ratios; say so
 * up front rather than let a busy machine pass for a slow gateway.
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
  const file = readdirSync(profileDirectory).find((name) => /\.\d+\.0\.\d+\.cpuprofile$/.test(name));
  if (file === undefined) throw new BenchAbort('the gateway wrote no CPU profile (did it exit cleanly?)');
  mkdirSync(resultsDirectory, { recursive: true });
  copyFileSync(join(profileDirectory, file), join(resultsDirectory, 'gateway.cpuprofile'));
  return hottestFunctions(join(profileDirectory, file), hotFunctionCount);
}

function report(
  options: BenchOptions,
  busyShareAtStart: number,
  throughput: readonly ThroughputRun[],
  latency: readonly LatencyRun[],
  hotFunctions: HotFunction[] | undefined,
): void {
  const comparisons = allComparisons(throughput, latency);
  const checks = targetChecks(comparisons);
  const sections = [
    `Throughput, ${options.connections} connections, ${options.durationS} s each (latency from the load generator, ms)`,
    throughputTable(throughput),
    'Unloaded latency: 1 connection, non-streaming',
    latencyTable(latency),
    'Gateway against the bare proxy (the cost of any Node hop) and against direct; with Redis state against memory state',
    comparisonTable(comparisons),
    'Targets',
    targetTable(checks),
  ];
  if (hotFunctions) sections.push('Gateway CPU profile: top self time (busy time only)', hotFunctionTable(hotFunctions));
  console.log(`\n${sections.map((section, index) => (index % 2 === 0 ? `== ${section}` : `${section}\n`)).join('\n')}`);

  mkdirSync(resultsDirectory, { recursive: true });
  const resultsFile = join(resultsDirectory, 'latest.json');
  const results = {
    generatedAt: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpuCount: availableParallelism(),
    otherCpuBusyShareAtStart: busyShareAtStart,
    options,
    contentChunks,
    throughput,
    latency,
    comparisons,
    targets: checks,
    ...(hotFunctions ? { gatewayHotFunctions: hotFunctions } : {}),
  };
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`results written to ${resultsFile}`);
}

let interrupted = false;
process.once('SIGINT', () => {
  interrupted = true;
  console.error('\ninterrupted: stopping the bench servers');
  stopAllChildServers().finally(() => process.exit(130));
});

main().then(
  () => {
    if (!interrupted) process.exitCode = 0;
  },
  (error: unknown) => {
    if (error instanceof BenchAbort) console.error(`\nbench aborted: ${error.message}`);
    else console.error(error);
    process.exitCode = 1;
  },
);
