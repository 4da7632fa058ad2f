import { randomUUID } from 'node:crypto';
import { Cluster, type Command, type Redis, type RedisOptions } from 'ioredis';
import { PrimaryUnanswered } from './redis-cluster.js';
import { connectRedis, pingPrimaries, type RedisCommands, type RedisTarget } from './redis-target.js';
import { timedOut } from './redis-timeout.js';

/**
 * Every Redis call is bounded: a Redis that stops answering costs a request at most this long
 * before the caller falls back to local state. Generous next to a loopback round trip (~0.1 ms)
 * so a busy machine does not trip it.
 */
const REDIS_COMMAND_TIMEOUT_MS = 500;
const CONNECT_TIMEOUT_MS = 1_000;
/**
 * How long a connection being dropped may take to close politely before it is cut: one dropped
 * because its server hangs (a cluster's pub/sub node) would never close, and its reconnection
 * waits for the close.
 */
const DISCONNECT_TIMEOUT_MS = 200;
/** Reconnect attempts back off to this and stay there, forever: Redis coming back is the normal case. */
const MAX_RECONNECT_DELAY_MS = 1_000;
/** A resync that failed with both connections still up is tried again after this. */
const RESYNC_RETRY_MS = 200;
/**
 * How often the link pings Redis on its command connection: a Redis that hangs (stopped, stuck in
 * a fork, behind a full network buffer) keeps its connections open, so only an unanswered call
 * tells. The ping notices a hang nobody's traffic has met yet, and ends a hang's degraded state
 * once Redis answers again. One tiny command every half second per replica (on a cluster, one per
 * primary, and one on the pub/sub connection).
 */
const HEALTH_PING_MS = 500;

export type RedisLinkOptions = RedisTarget & {
  /** Prepended to every key and channel, so several gateways (or tests) can share one Redis. */
  keyPrefix: string;
  /** Hears every change between shared (Redis answers) and local (it does not). */
  onStatus?: (status: LinkStatus) => void;
  /** Hears why a resync failed with Redis answering (it is tried again shortly): what keeps state local. */
  onResyncFailed?: (reason: string) => void;
};

export type LinkStatus = { up: true } | { up: false; reason: string };

/** Called again after every reconnection, so what was done locally meanwhile reaches Redis. */
export type ResyncHook = () => Promise<void>;

/**
 * The gateway's connection to Redis (`state.kind: redis` or `redis-cluster`): one connection for
 * commands and scripts, one for pub/sub (a subscribed connection can do nothing else). Never
 * queues a command while disconnected and never retries one: a call either answers within
 * `REDIS_COMMAND_TIMEOUT_MS` or fails at once, and the store that made it falls back to local
 * state. On a cluster shared state is up only while every primary holding hash slots answers: a
 * primary that died or hangs is an outage like a lost Redis, until it answers or its replica is
 * promoted. `up` says which it is; the link reconnects on its own, and once it does, the resync
 * hooks run before `up` is reported.
 */
export class RedisLink {
  readonly keyPrefix: string;
  /** Who this process is, fleet-wide: names a lease's holder (the half-open trial, the probe). */
  readonly replicaId = randomUUID();
  readonly commands: RedisCommands;
  readonly #subscriber: Redis;
  /** On a cluster the pub/sub node may be one the command connection never talks to: the ping checks it too. */
  readonly #onCluster: boolean;
  readonly #handlers = new Map<string, ((message: string) => void)[]>();
  readonly #resyncHooks: ResyncHook[] = [];
  readonly #onStatus: ((status: LinkStatus) => void) | undefined;
  readonly #onResyncFailed: ((reason: string) => void) | undefined;
  #up = false;
  /** Whether the current lack of Redis has been reported (a start without Redis is reported too). */
  #downReported = false;
  #closed = false;
  #lastError = 'not connected yet';
  #resyncing = false;
  #pinging = false;
  readonly #healthPing: NodeJS.Timeout;

  constructor(options: RedisLinkOptions) {
    this.keyPrefix = options.keyPrefix;
    this.#onStatus = options.onStatus;
    this.#onResyncFailed = options.onResyncFailed;
    const connection: RedisOptions = {
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      connectTimeout: CONNECT_TIMEOUT_MS,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt) => Math.min(attempt * 100, MAX_RECONNECT_DELAY_MS),
      // Never let a reconnection read a command twice (ioredis would resend unanswered ones).
      autoResendUnfulfilledCommands: false,
    };
    const connections = connectRedis(options, {
      commands: { ...connection, connectionName: `switchyard:${this.replicaId}` },
      subscriber: { ...connection, enableOfflineQueue: true, autoResubscribe: true, disconnectTimeout: DISCONNECT_TIMEOUT_MS },
    });
    this.commands = connections.commands;
    this.#subscriber = connections.subscriber;
    this.#onCluster = this.commands instanceof Cluster;
    // Shared state is back only once both connections are: a resync that ran before this replica
    // was subscribed again could miss what another replica published meanwhile.
    this.commands.on('ready', () => void this.#resync());
    this.#subscriber.on('ready', () => void this.#resync());
    this.commands.on('error', (error: Error) => {
      this.#lastError = error.message;
    });
    // A cluster's client reports its nodes' connection errors apart.
    this.commands.on('node error', (error: Error) => {
      this.#lastError = error.message;
    });
    this.commands.on('close', () => this.#setDown(`Redis unreachable: ${this.#lastError}`));
    this.#subscriber.on('close', () => this.#setDown(`Redis unreachable: ${this.#lastError}`));
    this.#subscriber.on('error', () => undefined);
    this.#subscriber.on('message', (channel: string, message: string) => {
      for (const handler of this.#handlers.get(channel) ?? []) handler(message);
    });
    this.#downOnTimeouts();
    this.#healthPing = setInterval(() => void this.#ping(), HEALTH_PING_MS).unref();
  }

  /** Whether Redis answers: shared state is in force. False: every store works on local state. */
  get up(): boolean {
    return this.#up;
  }

  key(name: string): string {
    return `${this.keyPrefix}${name}`;
  }

  /**
   * Hears every message on `channel` (unprefixed), from this process too. Subscriptions survive
   * reconnections; a message published while this link was down is lost, which is why stores
   * also resync on reconnection.
   */
  subscribe(channel: string, handler: (message: string) => void): void {
    const name = this.key(channel);
    const handlers = this.#handlers.get(name);
    if (handlers) {
      handlers.push(handler);
      return;
    }
    this.#handlers.set(name, [handler]);
    this.#subscriber.subscribe(name).catch(() => undefined);
  }

  /** Fire and forget: a lost message is made good by the next resync. */
  publish(channel: string, message: string): void {
    if (!this.#up) return;
    this.commands.publish(this.key(channel), message).catch(() => undefined);
  }

  /** Runs after every reconnection, before shared state is back in force (and now, if Redis is up already). */
  onResync(hook: ResyncHook): void {
    this.#resyncHooks.push(hook);
    if (this.#up) hook().catch(() => undefined);
  }

  /** Resolves once Redis has answered and the resync has run, or after `timeoutMs` (still local). */
  async ready(timeoutMs: number): Promise<boolean> {
    if (this.#up) return true;
    const deadline = Date.now() + timeoutMs;
    while (!this.#up && !this.#closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    return this.#up;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#healthPing);
    this.commands.disconnect();
    this.#subscriber.disconnect();
  }

  /**
   * Once both connections answer: waits until the subscriber's channels are subscribed again (a
   * ping queued behind the resubscription returns after it), runs the resync hooks, then reports
   * shared state back. Everything another replica publishes from then on is heard, and what it
   * published before is in Redis for the hooks to read.
   */
  async #resync(): Promise<void> {
    if (this.#resyncing || this.#up || this.#closed) return;
    if (this.commands.status !== 'ready' || this.#subscriber.status !== 'ready') return;
    this.#resyncing = true;
    try {
      // ioredis announces `ready` before it resubscribes, in the same turn.
      await new Promise((resolve) => setImmediate(resolve));
      await this.#subscriber.ping();
      // A cluster is ready once it knows its slots, with a primary perhaps still gone.
      await pingPrimaries(this.commands);
      for (const hook of this.#resyncHooks) await hook();
    } catch (error) {
      // Redis went away again, or did not answer in time: stay local and try again shortly.
      this.#lastError = error instanceof Error ? error.message : String(error);
      this.#onResyncFailed?.(this.#lastError);
      setTimeout(() => void this.#resync(), RESYNC_RETRY_MS).unref();
      return;
    } finally {
      this.#resyncing = false;
    }
    if (this.commands.status !== 'ready' || this.#subscriber.status !== 'ready' || this.#up) return;
    this.#up = true;
    this.#downReported = false;
    this.#onStatus?.({ up: true });
  }

  /**
   * A call Redis did not answer in time is the same outage as a closed connection: shared state is
   * down at once, so no request waits on Redis again until a ping says it answers (every store
   * looks at `up` before it calls). Watched where every command (and script) is sent, so no store
   * has to report its own timeouts.
   */
  #downOnTimeouts(): void {
    const commands = this.commands as unknown as { sendCommand: (command: Command, ...rest: unknown[]) => unknown };
    const send = commands.sendCommand.bind(commands);
    commands.sendCommand = (command, ...rest) => {
      command.promise.catch((error: unknown) => {
        if (timedOut(error)) this.#setDown(`Redis did not answer within ${REDIS_COMMAND_TIMEOUT_MS} ms (hung)`);
      });
      return send(command, ...rest);
    };
  }

  /** While up, notices a hang; while down after one (the connections never closed), brings shared state back once Redis answers. */
  async #ping(): Promise<void> {
    if (this.#pinging || this.#closed || this.commands.status !== 'ready') return;
    this.#pinging = true;
    try {
      await pingPrimaries(this.commands);
      if (this.#onCluster) await this.#pingSubscriber();
      if (!this.#up) await this.#resync();
    } catch (error) {
      // A cluster's primaries answer on connections of their own, which nothing else watches.
      if (error instanceof PrimaryUnanswered) this.#setDown(error.message);
      // On the command connection a timeout marks the link down where it is sent; anything else is a connection the reconnection handles.
    } finally {
      this.#pinging = false;
    }
  }

  /**
   * A cluster's pub/sub node can hang while every primary answers (it may be a replica, or a
   * primary already replaced): nothing published would be heard. Then the link is down, and the
   * connection is dropped for another node; its reconnection resyncs.
   */
  async #pingSubscriber(): Promise<void> {
    if (this.#subscriber.status !== 'ready') return;
    try {
      await this.#subscriber.ping();
    } catch (error) {
      if (!timedOut(error)) return;
      this.#setDown(`the Redis pub/sub connection did not answer within ${REDIS_COMMAND_TIMEOUT_MS} ms (hung): moving it to another node`);
      this.#subscriber.disconnect(true);
    }
  }

  #setDown(reason: string): void {
    if (this.#closed || this.#downReported) return;
    this.#up = false;
    this.#downReported = true;
    this.#onStatus?.({ up: false, reason });
  }
}
