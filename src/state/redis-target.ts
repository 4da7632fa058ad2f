import { Redis, type RedisOptions } from 'ioredis';

/**
 * Where the shared state lives: one Redis by URL (its password in the URL's userinfo or given
 * apart), or whichever server the sentinels currently name primary of `master`.
 */
export type RedisTarget = { url: string; password?: string | undefined } | { sentinels: readonly string[]; master: string; password?: string | undefined };

/**
 * A connection to the target. Through sentinels it asks them for the primary on every
 * (re)connection, so a reconnection after a failover reaches the promoted replica; and it listens
 * for their `+switch-master`, because a primary that hangs rather than dies keeps its connection
 * open and nothing else would make the client leave it.
 */
export function connectRedis(target: RedisTarget, options: RedisOptions): Redis {
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
