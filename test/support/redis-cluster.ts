/**
 * A real Redis Cluster of the tests' own: 3 primaries (optionally one replica each) from Debian's
 * redis-server with `cluster-enabled yes`, on free loopback ports (the cluster bus on ports of
 * its own), each node's files in its own temporary directory. The slots are split in three with
 * CLUSTER ADDSLOTSRANGE and the nodes introduced with CLUSTER MEET — what `redis-cli --cluster
 * create` does, without parsing its output. A replica's primary is called failed after
 * `NODE_TIMEOUT_MS` without an answer, so a killed primary is replaced within seconds. Same skip /
 * fail-under-CI rule as `redis-server.ts`.
 */
import { eventually } from '../scenario/scenario-helpers.js';
import { freePort } from './free-port.js';
import { askRedis, startRedisServer, type RedisServer } from './redis-process.js';
import { startedForThisFile } from './redis-server.js';

const HASH_SLOTS = 16_384;
const PRIMARIES = 3;
const NODE_TIMEOUT_MS = 1_000;
/** Nodes meet over the cluster bus and agree on the slots within a few of its 100 ms rounds; replicas sync once. */
const SETTLE_MS = 30_000;

export interface RedisCluster {
  /** `redis://127.0.0.1:PORT` of each primary the cluster started with, as `state.nodes` takes them. */
  nodes: string[];
  primaries: RedisServer[];
  /** One per primary (`replicas[i]` replicates `primaries[i]`), when asked for. */
  replicas: RedisServer[];
  /** The hash slot Redis places `key` in (asked of the cluster itself). */
  slotOf(key: string): Promise<number>;
  /** The port of the primary that serves `slot` now. */
  primaryPortOf(slot: number): Promise<number>;
  /** Resolves once a node other than `port` serves the slots `port` served, and the cluster is ok again (bounded). */
  promotedFrom(port: number, timeoutMs: number): Promise<number>;
  close(): Promise<void>;
}

export async function startRedisCluster(options: { replicas?: boolean } = {}): Promise<RedisCluster> {
  const primaries: RedisServer[] = [];
  const replicas: RedisServer[] = [];
  const close = async () => {
    await Promise.all([...primaries, ...replicas].map((server) => server.close()));
  };
  try {
    for (let index = 0; index < PRIMARIES; index++) primaries.push(await startClusterNode());
    if (options.replicas) for (let index = 0; index < PRIMARIES; index++) replicas.push(await startClusterNode());
    const everyNode = [...primaries, ...replicas];
    // Distinct epochs, as `redis-cli --cluster create` sets them: no collision to resolve after a failover.
    await Promise.all(everyNode.map((node, index) => askRedis(node.url, (redis) => redis.call('CLUSTER', 'SET-CONFIG-EPOCH', String(index + 1)))));
    await Promise.all(
      primaries.map((primary, index) => {
        const [first, last] = slotRange(index);
        return askRedis(primary.url, (redis) => redis.call('CLUSTER', 'ADDSLOTSRANGE', String(first), String(last)));
      }),
    );
    await askRedis(primaries[0]!.url, async (redis) => {
      for (const node of everyNode.slice(1)) await redis.call('CLUSTER', 'MEET', '127.0.0.1', String(node.port), String(await busPortOf(node)));
    });
    for (const node of everyNode) {
      await eventually(async () => (await clusterNodes(node.url)).length === everyNode.length, SETTLE_MS, `node ${node.port} knowing every node`);
    }
    for (const [index, replica] of replicas.entries()) {
      const primaryId = await askRedis(primaries[index]!.url, (redis) => redis.call('CLUSTER', 'MYID'));
      await askRedis(replica.url, (redis) => redis.call('CLUSTER', 'REPLICATE', String(primaryId)));
    }
    for (const node of everyNode) await eventually(() => clusterOk(node.url), SETTLE_MS, `node ${node.port} reporting cluster_state:ok`);
    for (const replica of replicas) {
      await eventually(async () => (await askRedis(replica.url, (redis) => redis.info('replication'))).includes('master_link_status:up'), SETTLE_MS, `replica ${replica.port} in sync`);
    }

    // Every node at once, the first answer taken: a node that is down or frozen does not hold the question up.
    const askAny = <T>(question: (url: string) => Promise<T>): Promise<T> => Promise.any(everyNode.map((node) => question(node.url)));
    const primaryPortOf = (slot: number) =>
      askAny(async (url) => {
        const owner = (await clusterNodes(url)).find((node) => node.flags.includes('master') && !node.flags.includes('fail') && node.slots.some(([first, last]) => slot >= first && slot <= last));
        if (!owner) throw new Error(`no primary serves slot ${slot}`);
        return owner.port;
      });
    return {
      nodes: primaries.map((primary) => primary.url),
      primaries,
      replicas,
      slotOf: (key) => askAny((url) => askRedis(url, async (redis) => Number(await redis.call('CLUSTER', 'KEYSLOT', key)))),
      primaryPortOf,
      async promotedFrom(port, timeoutMs) {
        const slot = slotRange(primaries.findIndex((primary) => primary.port === port))[0];
        let promoted = port;
        await eventually(
          async () => {
            promoted = await primaryPortOf(slot).catch(() => port);
            return promoted !== port && (await clusterOk(`redis://127.0.0.1:${promoted}`).catch(() => false));
          },
          timeoutMs,
          `a replica promoted over ${port}`,
        );
        return promoted;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** One cluster for the calling test file, when this machine has redis-server; always stopped afterwards. */
export function redisClusterForThisFile(options: { replicas?: boolean } = {}): { available: boolean; cluster(): RedisCluster } {
  const { available, started } = startedForThisFile(() => startRedisCluster(options), 60_000, 'the Redis Cluster');
  return { available, cluster: started };
}

/** A node of its own: the cluster bus on a free port too (the default, port + 10000, may be out of range or taken). */
async function startClusterNode(): Promise<RedisServer> {
  const busPort = await freePort();
  return startRedisServer({
    args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(NODE_TIMEOUT_MS), '--cluster-port', String(busPort)],
  });
}

async function busPortOf(node: RedisServer): Promise<number> {
  const [, value] = (await askRedis(node.url, (redis) => redis.config('GET', 'cluster-port'))) as [string, string];
  return Number(value);
}

/** The primaries' share of the slots: three ranges, the last one taking what the division leaves. */
function slotRange(index: number): [number, number] {
  const size = Math.floor(HASH_SLOTS / PRIMARIES);
  return [index * size, index === PRIMARIES - 1 ? HASH_SLOTS - 1 : (index + 1) * size - 1];
}

async function clusterOk(url: string): Promise<boolean> {
  return (await askRedis(url, (redis) => redis.call('CLUSTER', 'INFO') as Promise<string>)).includes('cluster_state:ok');
}

interface ClusterNodeLine {
  port: number;
  flags: string[];
  slots: [number, number][];
}

/** `CLUSTER NODES` as the node at `url` sees the cluster. */
async function clusterNodes(url: string): Promise<ClusterNodeLine[]> {
  const text = (await askRedis(url, (redis) => redis.call('CLUSTER', 'NODES'))) as string;
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [, address = '', flags = '', , , , , , ...slots] = line.split(' ');
      return {
        port: Number(address.split('@')[0]!.split(':')[1]),
        flags: flags.split(','),
        slots: slots.filter((range) => !range.startsWith('[')).map((range) => {
          const [first, last = first] = range.split('-');
          return [Number(first), Number(last)] as [number, number];
        }),
      };
    });
}
