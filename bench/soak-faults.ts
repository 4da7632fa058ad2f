import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import type { PostgresServer } from '../test/support/postgres-process.js';
import type { RedisServer } from '../test/support/redis-process.js';
import type { RedisSentinelSet } from '../test/support/redis-sentinel-set.js';
import type { GatewayFleet } from '../test/support/gateway-fleet.js';
import { replicaKillDuringPostgresStop, watchSpillEmptied, type Rotation } from './soak-replica-kill.js';
import type { FaultActions, FaultName } from './soak-schedule.js';
import { seconds } from './soak-tally.js';

export interface FaultTargets {
  sentinels: RedisSentinelSet;
  postgres: PostgresServer;
  /** The replicas, sharing one spill directory. */
  fleet: GatewayFleet;
  rotation: Rotation;
  /** Prints a line stamped with the soak's clock. */
  log(line: string): void;
}

/** How long the soak watches for the sentinels' promotion and for a restarted server to follow the new primary. */
const watchTimeoutMs = 30_000;

/** A returning server is asked this often whether it follows the primary (one connection each time). */
const rejoinPollMs = 250;

/**
 * The actions of each fault. The Redis faults hit whichever server the sentinels name primary
 * when the fault begins (an earlier fault may have moved it). What follows in the background —
 * a promotion, a returning server made a replica — is watched and logged without holding up
 * the schedule; `watched` resolves once every such watch has ended.
 */
export function faultActions(targets: FaultTargets): { of(name: FaultName): FaultActions; watched(): Promise<void> } {
  const watches: Promise<void>[] = [];
  const watch = (what: () => Promise<void>) => watches.push(what().catch((error: unknown) => targets.log(`  (watch ended: ${error instanceof Error ? error.message : String(error)})`)));
  const { sentinels, postgres, fleet, log } = targets;

  const currentPrimary = async (): Promise<RedisServer> => {
    const port = await sentinels.primaryPort();
    const server = sentinels.servers.find((each) => each.port === port);
    if (!server) throw new Error(`the sentinels name :${port} primary, not a server of the set`);
    return server;
  };
  const watchPromotion = (port: number, beganAtMs: number) =>
    watch(async () => {
      const promoted = await sentinels.promotedFrom(port, watchTimeoutMs);
      log(`  the sentinels promoted :${promoted}, ${seconds(Date.now() - beganAtMs)} after the fault began`);
    });
  const watchRejoin = (server: RedisServer, beganAtMs: number) =>
    watch(async () => {
      const giveUpAtMs = Date.now() + watchTimeoutMs;
      while (!(await followsAPrimary(server.url))) {
        if (Date.now() > giveUpAtMs) throw new Error(`:${server.port} is not a replica in sync within ${seconds(watchTimeoutMs)}`);
        await sleep(rejoinPollMs);
      }
      log(`  :${server.port} is a replica in sync with :${await sentinels.primaryPort()}, ${seconds(Date.now() - beganAtMs)} after it returned`);
    });

  const actions: Record<FaultName, () => FaultActions> = {
    'redis-hang': () => {
      let frozen: RedisServer | undefined;
      return {
        async begin() {
          frozen = await currentPrimary();
          frozen.freeze();
          log(`redis-hang: SIGSTOP the Redis primary :${frozen.port}`);
          watchPromotion(frozen.port, Date.now());
        },
        async end() {
          frozen!.thaw();
          log(`redis-hang: SIGCONT :${frozen!.port}; the sentinels name :${await sentinels.primaryPort()} primary`);
          watchRejoin(frozen!, Date.now());
        },
      };
    },
    'redis-kill': () => {
      let killed: RedisServer | undefined;
      return {
        async begin() {
          killed = await currentPrimary();
          await killed.stop();
          log(`redis-kill: SIGKILL the Redis primary :${killed.port}`);
          watchPromotion(killed.port, Date.now());
        },
        async end() {
          await killed!.start();
          log(`redis-kill: restarted :${killed!.port} (empty, as a crashed server without persistence comes back)`);
          watchRejoin(killed!, Date.now());
        },
      };
    },
    'postgres-stop': () => ({
      async begin() {
        await postgres.stop();
        log('postgres-stop: PostgreSQL stopped (pg_ctl stop -m fast: connections cut)');
      },
      async end() {
        await postgres.start();
        log('postgres-stop: PostgreSQL started again');
        watch(watchSpillEmptied(fleet, Date.now(), log));
      },
    }),
    'postgres-stop-kill': () => replicaKillDuringPostgresStop({ ...targets, watch }),
    'postgres-hang': () => ({
      async begin() {
        postgres.freeze();
        log('postgres-hang: SIGSTOP PostgreSQL and its backends (connections stay open, nothing answers)');
      },
      async end() {
        postgres.thaw();
        log('postgres-hang: SIGCONT PostgreSQL');
      },
    }),
  };
  return {
    of: (name) => actions[name](),
    watched: async () => {
      await Promise.all(watches);
    },
  };
}

/** Whether the server at `url` is a replica whose link to its primary is up. */
async function followsAPrimary(url: string): Promise<boolean> {
  const redis = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000, commandTimeout: 1_000 });
  redis.on('error', () => undefined);
  try {
    const info = await redis.info('replication');
    return info.includes('role:slave') && info.includes('master_link_status:up');
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}
