import { isIP, createConnection, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { AbstractConnector, Cluster, Redis, type RedisOptions } from 'ioredis';
import { timedOut } from './redis-timeout.js';

/** How many hash slots a Redis Cluster divides its keys into. */
const HASH_SLOTS = 16_384;

/** A Redis Cluster by the URLs of some of its nodes (one scheme, one user and password: the config has checked). */
export interface RedisClusterTarget {
  nodes: readonly string[];
  password?: string | undefined;
}

interface NodeAddress {
  host: string;
  port: number;
}

/** A Redis Cluster primary did not answer (or has no connection): shared state is down until every one does. */
export class PrimaryUnanswered extends Error {}

/**
 * The command connection to a cluster: ioredis's `Cluster`, which sends each command (and script)
 * to the primary of its keys' slot and follows MOVED / ASK after a failover or a resharding. It
 * never sends a command again: a command whose connection closed may have run (its reply lost),
 * and a cluster that refuses for want of a primary (CLUSTERDOWN) fails the call at once, so the
 * caller falls back to local state rather than wait.
 */
export function connectCluster(target: RedisClusterTarget, options: RedisOptions): Cluster {
  const { retryStrategy, enableOfflineQueue, ...nodeOptions } = options;
  const { startupNodes, access, tls } = clusterAccess(target);
  return new Cluster(startupNodes, {
    ...(retryStrategy ? { clusterRetryStrategy: (attempt: number) => retryStrategy(attempt) } : {}),
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    retryDelayOnFailover: 0,
    retryDelayOnClusterDown: 0,
    redisOptions: { ...nodeOptions, ...access, ...(tls ? { tls: {} } : {}) },
    // A certificate names a host, not its address: with TLS the configured nodes are reached by their names, not resolved first.
    ...(tls ? { dnsLookup: (address: string, callback: (error: null, address: string) => void) => callback(null, address) } : {}),
  });
}

/**
 * The pub/sub connection to a cluster: a plain connection to one node at a time, any node (a
 * PUBLISH reaches every node of a cluster), the next one the cluster knows on every
 * reconnection, so a node that is gone for good is left for another. ioredis's own cluster
 * subscriber also moves to another node, but silently: a reconnection here closes first, so the
 * link goes down and resyncs what it may have missed, as with one Redis.
 */
export function connectClusterSubscriber(target: RedisClusterTarget, options: RedisOptions, commands: Cluster): Redis {
  const { startupNodes, access, tls } = clusterAccess(target);
  const candidates = () => distinct([...commands.nodes('all').map((node) => ({ host: node.options.host ?? '', port: node.options.port ?? 0 })), ...startupNodes]);
  return new Redis({ ...options, ...access, Connector: nodeByNodeConnector(candidates, tls) });
}

/**
 * Resolves once every primary holding hash slots answers a PING; throws `PrimaryUnanswered` when
 * a slot has no primary or one does not answer. A primary that is gone or hangs makes the client
 * read the slots again, so a replica promoted in its place is found by the next ping rather than
 * the next periodic refresh (a hung primary's connection never closes to say it is gone).
 */
export async function pingClusterPrimaries(cluster: Cluster): Promise<void> {
  const owners = new Set<string>();
  let covered = 0;
  for (const nodes of cluster.slots) {
    if (!nodes?.[0]) continue;
    covered++;
    owners.add(nodes[0]);
  }
  if (covered < HASH_SLOTS) throw new PrimaryUnanswered(`Redis Cluster: ${HASH_SLOTS - covered} hash slots have no primary`);
  const primaries = new Map(cluster.nodes('master').map((node) => [`${node.options.host}:${node.options.port}`, node]));
  await Promise.all(
    [...owners].map(async (owner) => {
      const primary = primaries.get(owner);
      if (!primary) {
        cluster.refreshSlotsCache();
        throw new PrimaryUnanswered(`Redis Cluster primary ${owner} unreachable`);
      }
      try {
        await primary.ping();
      } catch (error) {
        cluster.refreshSlotsCache();
        if (timedOut(error)) throw new PrimaryUnanswered(`Redis Cluster primary ${owner} did not answer within ${primary.options.commandTimeout} ms (hung)`);
        throw new PrimaryUnanswered(`Redis Cluster primary ${owner} unreachable: ${error instanceof Error ? error.message : String(error)}`);
      }
    }),
  );
}

/** The startup nodes, and the user, password and TLS every node is reached with. */
function clusterAccess(target: RedisClusterTarget): { startupNodes: NodeAddress[]; access: { username?: string; password?: string }; tls: boolean } {
  const urls = target.nodes.map((node) => new URL(node));
  const first = urls[0];
  const password = target.password ?? (first?.password ? decodeURIComponent(first.password) : undefined);
  const username = first?.username ? decodeURIComponent(first.username) : undefined;
  return {
    startupNodes: urls.map((url) => ({ host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port === '' ? 6379 : Number(url.port) })),
    access: { ...(username === undefined ? {} : { username }), ...(password === undefined ? {} : { password }) },
    tls: first?.protocol === 'rediss:',
  };
}

function distinct(nodes: readonly NodeAddress[]): NodeAddress[] {
  const byKey = new Map(nodes.filter((node) => node.host !== '' && node.port > 0).map((node) => [`${node.host}:${node.port}`, node]));
  return [...byKey.values()];
}

/** An ioredis connector that connects to the next of `candidates()` each time it is asked to. */
function nodeByNodeConnector(candidates: () => readonly NodeAddress[], tls: boolean) {
  let turn = 0;
  return class NodeByNodeConnector extends AbstractConnector {
    constructor(options: unknown) {
      // ioredis hands its connector the connection's options, its defaults filled in.
      super((options as RedisOptions).disconnectTimeout ?? 2_000);
    }

    connect(): Promise<Socket | TLSSocket> {
      const nodes = candidates();
      const node = nodes[turn++ % Math.max(1, nodes.length)];
      if (!node) return Promise.reject(new Error('Redis Cluster: no node known to connect to'));
      this.connecting = true;
      const stream = tls ? connectTls({ host: node.host, port: node.port, ...(isIP(node.host) ? {} : { servername: node.host }) }) : createConnection(node);
      // ioredis reads the first error from here when the connection fails before its own listeners are on.
      stream.once('error', (error) => {
        this.firstError = error;
      });
      this.stream = stream;
      return Promise.resolve(stream);
    }
  };
}
