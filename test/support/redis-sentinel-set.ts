/**
 * A real Redis Sentinel set of its own: a primary, one replica (`--replicaof`) and three
 * sentinels (quorum 2) from Debian's redis-server, on free loopback ports, files in a temporary
 * directory. The sentinels call the primary down after `DOWN_AFTER_MS` without an answer, so a
 * killed primary is replaced within seconds. The tests use it through `redis-sentinel.ts`; the
 * fault soak (bench/fault-soak.ts) starts one for its fleet. Nothing here depends on the test runner.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../scenario/scenario-helpers.js';
import { freePort } from './free-port.js';
import { askRedis, killRedis, spawnRedis, startRedisServer, type RedisServer } from './redis-process.js';

export const MASTER_NAME = 'switchyard-test';
const DOWN_AFTER_MS = 500;
const FAILOVER_TIMEOUT_MS = 5_000;
const SENTINELS = 3;
/** Sentinels find the replica and each other within a couple of their 1–2 s announcement rounds. */
const SETTLE_MS = 30_000;

export interface RedisSentinelSet {
  /** `127.0.0.1:PORT` of each sentinel, as `state.sentinels` takes them. */
  sentinels: string[];
  master: string;
  /** The primary the set started with, then its replica; which one is primary now, `primaryPort` says. */
  servers: readonly RedisServer[];
  /** The port the sentinels name primary now. */
  primaryPort(): Promise<number>;
  /** SIGKILLs the primary the set started with (a crash, not a shutdown). */
  killPrimary(): Promise<void>;
  /** SIGSTOPs the primary the set started with: its connections stay open and nothing is answered. */
  freezePrimary(): void;
  /** Resolves once the sentinels agree on a primary other than `port` (bounded). */
  promotedFrom(port: number, timeoutMs: number): Promise<number>;
  close(): Promise<void>;
}

export async function startRedisSentinelSet(): Promise<RedisSentinelSet> {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-sentinel-'));
  const servers: RedisServer[] = [];
  const sentinelProcesses: ChildProcess[] = [];
  const sentinels: string[] = [];
  const close = async () => {
    await Promise.all([...sentinelProcesses.map(killRedis), ...servers.map((server) => server.close())]);
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    const primary = await startRedisServer();
    servers.push(primary);
    const replica = await startRedisServer({ args: ['--replicaof', '127.0.0.1', String(primary.port)] });
    servers.push(replica);
    for (let index = 0; index < SENTINELS; index++) {
      const port = await freePort();
      const file = join(directory, `sentinel-${index}.conf`);
      // Sentinel rewrites its file as it learns the set: each needs one of its own, writable.
      writeFileSync(
        file,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          'protected-mode no',
          `dir ${directory}`,
          `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${primary.port} 2`,
          `sentinel down-after-milliseconds ${MASTER_NAME} ${DOWN_AFTER_MS}`,
          `sentinel failover-timeout ${MASTER_NAME} ${FAILOVER_TIMEOUT_MS}`,
          '',
        ].join('\n'),
      );
      sentinelProcesses.push(await spawnRedis([file, '--sentinel'], `redis://127.0.0.1:${port}`));
      sentinels.push(`127.0.0.1:${port}`);
    }
    // A failover needs a replica in sync that every sentinel knows, and sentinels that know each other (to elect a leader).
    await eventually(async () => (await askRedis(replica.url, (redis) => redis.info('replication'))).includes('master_link_status:up'), SETTLE_MS, 'the replica in sync');
    for (const sentinel of sentinels) {
      await eventually(
        async () => {
          const [replicas, peers] = await askRedis(`redis://${sentinel}`, (redis) =>
            Promise.all([redis.call('SENTINEL', 'REPLICAS', MASTER_NAME), redis.call('SENTINEL', 'SENTINELS', MASTER_NAME)]),
          );
          return (replicas as unknown[]).length === 1 && (peers as unknown[]).length === SENTINELS - 1;
        },
        SETTLE_MS,
        `sentinel ${sentinel} knowing the replica and its peers`,
      );
    }
    const primaryPort = async () => {
      const [, port] = (await askRedis(`redis://${sentinels[0]}`, (redis) => redis.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME))) as [string, string];
      return Number(port);
    };
    return {
      sentinels,
      master: MASTER_NAME,
      servers,
      primaryPort,
      killPrimary: () => primary.stop(),
      freezePrimary: () => primary.freeze(),
      async promotedFrom(port, timeoutMs) {
        await eventually(async () => (await primaryPort()) !== port, timeoutMs, `the sentinels promoting a replica over ${port}`);
        return primaryPort();
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
