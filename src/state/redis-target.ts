import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { connectCluster, connectClusterSubscriber, pingClusterPrimaries, type RedisClusterTarget } from './redis-cluster.js';

/**
 * Where the shared state lives: one Redis by URL (its password in the URL's userinfo or given
 * apart), whichever server the sentinels currently name primary of `master`, or a Redis Cluster
 * by some of its nodes.
 */
export type RedisTarget =
  | { url: string; password?: string | undefined }
  | { sentinels: readonly string[]; master: string; password?: string | undefined }
  | RedisClusterTarget;

/** The command connection: one Redis (directly or through sentinels), or a cluster's client. */
export type RedisCommands = Redis | Cluster;

/** A link's two connections: one for commands and scripts, one for pub/sub (a subscribed connection can do nothing else). */
export interface RedisConnections {
  commands: RedisCommands;
  /** Always one plain connection: on a cluster, to one node at a time. */
  subscriber: Redis;
}

/**
 * Connects to the target. Through sentinels each connection asks them for the primary on every
 * (re)connection, so a reconnection after a failover reaches the promoted replica; and it listens
 * for their `+switch-master`, because a primary that hangs rather than dies keeps its connection
 * open and nothing else would make the client leave it.
 */
export function connectRedis(target: RedisTarget, options: { commands: RedisOptions; subscriber: RedisOptions }): RedisConnections {
  if ('nodes' in target) {
    const commands = connectCluster(target, options.commands);
    return { commands, subscriber: connectClusterSubscriber(target, options.subscriber, commands) };
  }
  return { commands: connectServer(target, options.commands), subscriber: connectServer(target, options.subscriber) };
}

/** Resolves once the primary answers a PING — on a cluster, every primary that holds hash slots. */
export async function pingPrimaries(commands: RedisCommands): Promise<void> {
  if (commands instanceof Cluster) return pingClusterPrimaries(commands);
  await commands.ping();
}

function connectServer(target: Exclude<RedisTarget, RedisClusterTarget>, options: RedisOptions): Redis {
  const password = target.password === undefined ? {} : { password: target.password };
  if ('url' in target) return new Redis(target.url, { ...options, ...password });
  return new Redis({
    ...options,
    ...password,
    sentinels: target.sentinels.map(sentinelAddress),
    name: target.master,
    failoverDetector: true,
    // A sentinel that does not answer is passed over for the next, no slower than a command is given up on.
    ...(options.commandTimeout === undefined ? {} : { sentinelCommandTimeout: options.commandTimeout }),
  });
}

/** `host:port` (the config has checked its form), `[v6]:port` unbracketed for the socket. */
export function sentinelAddress(address: string): { host: string; port: number } {
  const separator = address.lastIndexOf(':');
  return { host: address.slice(0, separator).replace(/^\[(.*)\]$/, '$1'), port: Number(address.slice(separator + 1)) };
}
