/**
 * `npm run bench:soak`: a fleet of `switchyard serve` replicas on Redis Sentinel and PostgreSQL
 * under open-loop load while a schedule hangs and kills the Redis primary and stops and hangs
 * PostgreSQL. Prints each fault as it happens and each phase as it ends, then — once the
 * replicas have drained their spill files — compares the records and spend rows in PostgreSQL
 * with the requests answered. Every process it starts is stopped at the end, on error and on
 * Ctrl-C. See bench/README.md, "The fault soak".
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { FLEET_ADMIN_TOKEN, startGatewayFleet } from '../test/support/gateway-fleet.js';
import { POSTGRES_BIN_DIRECTORY, startPostgresServer } from '../test/support/postgres-process.js';
import { REDIS_SERVER } from '../test/support/redis-process.js';
import { startRedisSentinelSet } from '../test/support/redis-sentinel-set.js';
import { createKey } from '../test/support/virtual-keys.js';
import { gatewayState } from './bench-key.js';
import { startChildServer } from './child-server.js';
import { faultActions, type FaultTargets } from './soak-faults.js';
import { startOpenLoopLoad, type LoadSummary, type RequestOutcome } from './soak-load.js';
import { parseSoakOptions, soakUsage, type SoakOptions } from './soak-options.js';
import { faultSchedule, phaseIndexAt, phasesOf, type Phase, type ScheduledFault } from './soak-schedule.js';
import { watchReplicaStates } from './soak-state-watch.js';
import { checkStore, storeCheckLines, sumOverReplicas, waitForDrain } from './soak-store-check.js';
import { ms, phaseLine, phaseTable, Tally } from './soak-tally.js';

/** A reason the soak cannot run or its figures would mean nothing: it stops and says why. */
class SoakAbort extends Error {}

const route = 'soak';
/** 16 chunks 10 ms apart: a stream lasts ~160 ms, so a stall between chunks stands out. */
const upstreamModel = 'gpt-soak?chunks=16&chunk_ms=10';
/** How long the replicas get to write what they spilled, once the load has stopped. */
const drainBoundMs = 60_000;
const sharedStateTimeoutMs = 30_000;

/** What the soak started, stopped last-started first. */
const cleanups: (() => Promise<unknown>)[] = [];
let stopLoad: (() => void) | undefined;
/**
 * Ctrl-C (or SIGTERM): the load stops at once; whatever step is starting something finishes, so
 * that it is tracked, then every process is stopped. A second Ctrl-C exits without waiting.
 */
const interruption = new AbortController();

async function main(): Promise<boolean> {
  const parsed = parseSoakOptions(process.argv.slice(2));
  if (parsed === 'help') {
    console.log(soakUsage);
    return true;
  }
  const options = parsed;
  if (!REDIS_SERVER) throw new SoakAbort('redis-server is not installed (apt-get install -y redis-server; the sentinels run as redis-server --sentinel)');
  if (!POSTGRES_BIN_DIRECTORY) throw new SoakAbort('PostgreSQL is not installed (apt-get install -y postgresql)');
  const startedAtMs = Date.now();
  const log = (line: string) => console.log(`[${((Date.now() - startedAtMs) / 1_000).toFixed(1).padStart(6)} s] ${line}`);

  log(`starting PostgreSQL, a Redis primary + replica + 3 sentinels, the mock provider and ${options.replicas} replica${options.replicas === 1 ? '' : 's'}…`);
  const postgres = await startPostgresServer();
  track(() => postgres.close());
  const databaseUrl = await postgres.createDatabase('soak');
  const sentinels = await startRedisSentinelSet();
  track(() => sentinels.close());
  const mock = await startChildServer('mock provider', 'mock-server.js');
  track(() => mock.stop());
  const fleet = await startGatewayFleet({
    redis: { sentinels: sentinels.sentinels, master: sentinels.master },
    postgresUrl: databaseUrl,
    replicas: options.replicas,
    keyPrefix: 'soak:',
    // As replicas started from one working directory are: they spill into one directory (the default `.`).
    sharedDirectory: true,
    yaml: `connections:
  mock: { provider: mock, dialect: openai, base_url: "${mock.url}/v1" }
routes:
  ${route}:
    retries: 0
    targets: [{ connection: mock, model: "${upstreamModel}", price: { input_per_mtok: 1, output_per_mtok: 1 } }]`,
  });
  track(() => fleet.stop());
  const urls = fleet.replicas.map((replica) => replica.url);
  /** Every replica's URL now: one restarted by a fault listens on a new port. */
  const replicaUrls = () => fleet.replicas.map((replica) => replica.url);

  // Limits far above the load: every request passes the whole gate (rpm, budget reservation) in Redis, none is refused.
  const keyFields = { limits: { rpm: 1_000_000_000 }, budget: { usd: 1_000_000, period: 'total' } };
  const key = await createKey(urls[0]!, FLEET_ADMIN_TOKEN, { name: 'soak', ...keyFields });
  await waitForSharedState(urls);
  await verifyEveryReplica(urls, (await createKey(urls[0]!, FLEET_ADMIN_TOKEN, { name: 'soak-verify', ...keyFields })).key);

  interruption.signal.throwIfAborted();
  const schedule = faultSchedule(options.durationS, options.faults);
  const phases = phasesOf(options.durationS, schedule);
  log(`load: ${options.rps} requests/s for ${options.durationS} s over ${urls.length} replicas; faults: ${describeSchedule(schedule)}`);
  const tallies = phases.map(() => new Tally());
  const total = new Tally();
  const answeredIds: (string | undefined)[] = [];
  const errorIds: string[] = [];
  const onOutcome = (outcome: RequestOutcome) => {
    tallies[phaseIndexAt(phases, outcome.dueS)]!.add(outcome);
    total.add(outcome);
    if (outcome.error === undefined) answeredIds.push(outcome.requestId);
    else if (outcome.requestId !== undefined) errorIds.push(outcome.requestId);
  };

  const states = watchReplicaStates(replicaUrls, log);
  let inLoad = [...urls];
  const load = startOpenLoopLoad({ urls: () => inLoad, key: key.key, route, rps: options.rps, durationS: options.durationS, onOutcome });
  stopLoad = load.abort;
  const loadStartedAtMs = Date.now();
  // With what the spill files hold as the phase ends: a store fault shows there.
  const logPhase = async (index: number) => {
    // A replica killed by a fault does not answer: the others' spill files are still worth a look.
    const depths = await Promise.all(replicaUrls().map((url) => sumOverReplicas([url], 'switchyard_spill_depth').catch(() => undefined)));
    const reached = depths.filter((depth) => depth !== undefined);
    const spilled = reached.length === 0 ? 'unknown' : `${reached.reduce((sum, depth) => sum + depth, 0)}${reached.length < depths.length ? ` (${depths.length - reached.length} replica(s) not answering)` : ''}`;
    log(`${phaseLine(phases[index]!, tallies[index]!, dueIn(phases[index]!, options.rps) - tallies[index]!.sent)}; in spill files: ${spilled}`);
  };
  // The last phase's line comes once the load has settled (it may settle before the phase's end, its last request being due earlier).
  const phaseTimers = phases.slice(0, -1).map((phase, index) => setTimeout(() => void logPhase(index), phase.toS * 1_000));
  const rotation = {
    take: (url: string) => (inLoad = inLoad.filter((each) => each !== url)),
    put: (url: string) => (inLoad = [...inLoad, url]),
    inFlightTo: load.inFlightTo,
  };
  const faults = faultActions({ sentinels, postgres, fleet, rotation, log } satisfies FaultTargets);
  let summary: LoadSummary;
  try {
    await runSchedule(schedule, loadStartedAtMs, faults.of);
    summary = await load.finished;
    interruption.signal.throwIfAborted();
    await logPhase(phases.length - 1);
    log(loadLine(summary, options));
    await faults.watched();
  } finally {
    stopLoad = undefined;
    load.abort();
    phaseTimers.forEach(clearTimeout);
    await states.stop();
  }

  log(`waiting for the replicas to drain their spill files (at most ${drainBoundMs / 1_000} s)…`);
  const drain = await waitForDrain(replicaUrls(), databaseUrl, { id: key.id, name: 'soak' }, drainBoundMs);
  const check = await checkStore(databaseUrl, { id: key.id, name: 'soak' }, answeredIds, errorIds);
  const dropped = await sumOverReplicas(replicaUrls(), 'switchyard_sink_dropped_total');
  const spilled = await sumOverReplicas(replicaUrls(), 'switchyard_spill_depth');

  const worst = worstPhases(phases, tallies);
  console.log(
    [
      '',
      `== Fault soak: ${urls.length} replicas, ${options.rps} requests/s for ${options.durationS} s, faults: ${describeSchedule(schedule)}`,
      phaseTable(phases, tallies, total),
      '',
      `requests answered: ${total.answered} of ${total.sent} sent (${summary.scheduled} scheduled); errors: ${total.errorCount}`,
      `errors by kind: ${total.errorSummary()}`,
      `max stall: longest request ${ms(total.maxLatencyMs)} (${worst.latency}); longest gap between stream chunks ${ms(total.maxGapMs)} (${worst.gap})`,
      loadLine(summary, options),
      '',
      `== Store: the soak key's rows in PostgreSQL, ${drain.settled ? `settled ${(drain.waitedMs / 1_000).toFixed(1)} s after the load` : `NOT settled within ${drainBoundMs / 1_000} s`}`,
      `left in spill files: ${spilled}; dropped by the replicas' writers (switchyard_sink_dropped_total): ${dropped}`,
      ...storeCheckLines(check),
    ].join('\n'),
  );
  return check.pass;
}

/** Every replica must share state through the sentinels before the load starts, or the first phase would measure a fallback. */
async function waitForSharedState(urls: readonly string[]): Promise<void> {
  const giveUpAtMs = Date.now() + sharedStateTimeoutMs;
  for (;;) {
    const states = await Promise.all(urls.map((url) => gatewayState(url).catch(() => 'unreachable')));
    if (states.every((state) => state === 'shared')) return;
    if (Date.now() > giveUpAtMs) throw new SoakAbort(`the replicas do not all share state through the sentinels: ${states.join(', ')}`);
    await sleep(250);
  }
}

/** One plain and one streamed request on each replica, with a key of its own (outside the soak's counts), must be answered whole. */
async function verifyEveryReplica(urls: readonly string[], verifyKey: string): Promise<void> {
  const problems: string[] = [];
  const load = startOpenLoopLoad({
    urls: () => urls,
    key: verifyKey,
    route,
    rps: urls.length * 2,
    durationS: 1,
    onOutcome: (outcome) => {
      if (outcome.error !== undefined) problems.push(`${outcome.stream ? 'streamed' : 'plain'}: ${outcome.error}`);
    },
  });
  await load.finished;
  if (problems.length > 0) throw new SoakAbort(`verification failed, nothing was measured:\n  ${problems.join('\n  ')}`);
}

async function runSchedule(schedule: readonly ScheduledFault[], loadStartedAtMs: number, actionsOf: ReturnType<typeof faultActions>['of']): Promise<void> {
  const until = (atS: number) => sleep(Math.max(0, loadStartedAtMs + atS * 1_000 - Date.now()), undefined, { signal: interruption.signal });
  for (const fault of schedule) {
    const actions = actionsOf(fault.name);
    await until(fault.startS);
    await actions.begin();
    await until(fault.endS);
    await actions.end();
  }
}

/** Requests due within a phase (request i is due at i / rps). */
function dueIn(phase: Phase, rps: number): number {
  return Math.ceil(phase.toS * rps) - Math.ceil(phase.fromS * rps);
}

function describeSchedule(schedule: readonly ScheduledFault[]): string {
  if (schedule.length === 0) return 'none';
  return schedule.map((fault) => `${fault.name} ${fault.startS.toFixed(1)}–${fault.endS.toFixed(1)} s`).join(', ');
}

function loadLine(summary: LoadSummary, options: SoakOptions): string {
  const achieved = summary.sent / options.durationS;
  return `the generator sent ${summary.sent} of ${summary.scheduled} requests (${achieved.toFixed(1)}/s of ${options.rps}/s asked), at most ${ms(summary.maxSendLagMs)} behind schedule; the last settled ${summary.elapsedS.toFixed(1)} s after the first was sent`;
}

/** The phases where the longest request and the longest chunk gap happened. */
function worstPhases(phases: readonly Phase[], tallies: readonly Tally[]): { latency: string; gap: string } {
  const argmax = (value: (tally: Tally) => number) => phases[tallies.reduce((best, tally, index) => (value(tally) > value(tallies[best]!) ? index : best), 0)]!.name;
  return { latency: `in ${argmax((tally) => tally.maxLatencyMs)}`, gap: `in ${argmax((tally) => tally.maxGapMs)}` };
}

/** Registers what was just started for the cleanup; past a Ctrl-C, goes no further. */
function track(stop: () => Promise<unknown>): void {
  cleanups.push(stop);
  interruption.signal.throwIfAborted();
}

async function cleanUp(): Promise<void> {
  stopLoad?.();
  while (cleanups.length > 0) await cleanups.pop()!().catch((error: unknown) => console.error(`cleanup: ${error instanceof Error ? error.message : String(error)}`));
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the load and every process the soak started (again to exit at once)`);
    interruption.abort();
    stopLoad?.();
    process.once(signal, () => process.exit(130));
  });
}

main()
  .then(
    (passed) => {
      process.exitCode = passed ? 0 : 1;
    },
    (error: unknown) => {
      if (!interruption.signal.aborted) console.error(error instanceof SoakAbort ? `\nsoak aborted: ${error.message}` : error);
      process.exitCode = 1;
    },
  )
  .finally(async () => {
    await cleanUp();
    // Everything started is stopped: nothing left half-started may keep an interrupted soak alive.
    if (interruption.signal.aborted) process.exit(130);
  });
