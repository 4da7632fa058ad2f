import { setTimeout as sleep } from 'node:timers/promises';
import type { GatewayFleet, Replica } from '../test/support/gateway-fleet.js';
import type { PostgresServer } from '../test/support/postgres-process.js';
import { parseSpillName } from '../src/sinks/spill-directory.js';
import { spillFileNames } from '../test/support/spill-files.js';
import type { FaultActions } from './soak-schedule.js';
import { seconds } from './soak-tally.js';

/** The replicas the load sends to; a fault takes one out and puts it back, as a load balancer does. */
export interface Rotation {
  take(url: string): void;
  put(url: string): void;
  /** Requests a replica has not finished answering. */
  inFlightTo(url: string): number;
}

export interface ReplicaKillTargets {
  fleet: GatewayFleet;
  postgres: PostgresServer;
  rotation: Rotation;
  log(line: string): void;
  /** Runs `what` in the background; the soak waits for it before its closing note. */
  watch(what: () => Promise<void>): void;
}

/** Looks at a replica's `/readyz` (what waits in its spill files) this often while its writers settle. */
const settlePollMs = 250;
/** Its spill files are settled once they hold the same for this many looks in a row. */
const settledLooks = 4;
/** The longest the fault waits for requests in flight to end, or spill files to settle or empty. */
const waitBoundMs = 60_000;
/** How long the doomed replica serves with PostgreSQL down before it is taken out: it spills meanwhile. */
const servingThroughOutageMs = 2_000;

/**
 * `postgres-stop-kill`: PostgreSQL is stopped as after a crash (`pg_ctl stop -m immediate`) with
 * every replica spilling into one shared directory; after 2 s of serving (and spilling) one replica
 * is taken out of the load, as a load balancer drains a pod, and killed with SIGKILL once what it
 * answered is in its spill files (what a kill loses from memory is the crash window, which the
 * soak's count would otherwise mistake for a lost record: docs/operations.md). At the end PostgreSQL starts, the replica is started again in the same directory and put
 * back in the load; the soak logs which replica adopted the killed one's files and when the
 * directory held no spill file any more.
 */
export function replicaKillDuringPostgresStop(targets: ReplicaKillTargets): FaultActions {
  const { fleet, postgres, rotation, log } = targets;
  const index = fleet.replicas.length - 1;
  let killedSpillId = '';
  return {
    async begin() {
      const victim = fleet.replicas[index]!;
      await postgres.stop('immediate');
      log('postgres-stop-kill: PostgreSQL stopped (pg_ctl stop -m immediate: as after a crash)');
      await sleep(servingThroughOutageMs);
      rotation.take(victim.url);
      await until(() => rotation.inFlightTo(victim.url) === 0, `replica ${index + 1}'s requests in flight to end`);
      log(`postgres-stop-kill: replica ${index + 1} out of the load`);
      const spilled = await settledSpill(victim);
      killedSpillId = /"spill_id":"([^"]+)"/.exec(victim.process.output())?.[1] ?? '';
      const exited = new Promise((resolve) => victim.process.child.once('exit', resolve));
      victim.process.child.kill('SIGKILL');
      await exited;
      log(`postgres-stop-kill: SIGKILL replica ${index + 1} (${killedSpillId}), its spill files holding ${spilled.records} records and ${spilled.spend} spend rows`);
    },
    async end() {
      await postgres.start();
      const returnedAtMs = Date.now();
      log('postgres-stop-kill: PostgreSQL started again');
      const restarted = await fleet.restart(index);
      rotation.put(restarted.url);
      log(`postgres-stop-kill: replica ${index + 1} started again in the shared directory, back in the load, ${seconds(Date.now() - returnedAtMs)} after PostgreSQL returned`);
      targets.watch(async () => {
        await until(() => spillDataFiles(restarted.directory) === 0, 'the shared spill directory to empty');
        const adopter = fleet.replicas.findIndex((replica) => adoptedBy(replica, killedSpillId));
        const by = adopter === -1 ? 'no running replica (a replica since stopped?)' : `replica ${adopter + 1}${adopter === index ? ' (its own restart)' : ''}`;
        log(`  no spill file left ${seconds(Date.now() - returnedAtMs)} after PostgreSQL returned; the killed replica's files were adopted by ${by}`);
      });
    },
  };
}

/** Logs how long after PostgreSQL's return the fleet's spill directory held no spill file (for a fault without a kill). */
export function watchSpillEmptied(fleet: GatewayFleet, returnedAtMs: number, log: (line: string) => void): () => Promise<void> {
  return async () => {
    await until(() => spillDataFiles(fleet.replicas[0]!.directory) === 0, 'the spill files to empty');
    log(`  no spill file left ${seconds(Date.now() - returnedAtMs)} after PostgreSQL returned`);
  };
}

/** What a replica's spill files hold once they stop changing: everything it answered and could not store. */
async function settledSpill(replica: Replica): Promise<{ records: number; spend: number }> {
  let last = '';
  let same = 0;
  const giveUpAtMs = Date.now() + waitBoundMs;
  for (;;) {
    const response = await fetch(`${replica.url}/readyz`, { signal: AbortSignal.timeout(5_000) });
    const spill = ((await response.json()) as { spill: { records: number; spend: number } }).spill;
    same = JSON.stringify(spill) === last ? same + 1 : 0;
    last = JSON.stringify(spill);
    if (same >= settledLooks) return spill;
    if (Date.now() > giveUpAtMs) throw new Error(`the spill files of ${replica.url} did not settle within ${seconds(waitBoundMs)}`);
    await sleep(settlePollMs);
  }
}

function adoptedBy(replica: Replica, spillId: string): boolean {
  return replica.process
    .output()
    .split('\n')
    .some((line) => line.includes('"adopted":') && (JSON.parse(line) as { adopted: string[] }).adopted.includes(spillId));
}

/** Spill files of records and spend rows (not locks) in a directory, of any process. */
function spillDataFiles(directory: string): number {
  return spillFileNames(directory, 'switchyard').filter((name) => parseSpillName(name, 'switchyard')?.lock === false).length;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const giveUpAtMs = Date.now() + waitBoundMs;
  while (!condition()) {
    if (Date.now() > giveUpAtMs) throw new Error(`waited ${seconds(waitBoundMs)} for ${what}`);
    await sleep(100);
  }
}
