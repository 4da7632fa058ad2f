import { createHash } from 'node:crypto';
import {
  charsOf,
  DEFAULT_LEASE_MS,
  DEFAULT_MAX_STORED_CHARS,
  IDEMPOTENCY_TTL_MS,
  InMemoryIdempotencyStore,
  runningRetryAfterMs,
  type IdempotencyBegin,
  type IdempotencyBeginRequest,
  type IdempotencyEntry,
  type IdempotencyStore,
  type IdempotencyStoreOptions,
  type StoredResponse,
} from '../idempotency/idempotency-store.js';
import type { RedisLink } from './redis-link.js';
import { redisScript, type RedisScript } from './redis-script.js';

/**
 * KEYS: the entry (hash: run, body, started, stored). ARGV: body hash, run id, TTL ms, lease ms.
 * The claim is atomic: of two replicas beginning the same key at once, one gets `new`, the other
 * `running`. A run unfinished after its lease is taken as lost and the key claimed anew.
 */
const BEGIN_LUA = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local ttlMs, leaseMs = tonumber(ARGV[3]), tonumber(ARGV[4])
local run = redis.call('HMGET', KEYS[1], 'run', 'body', 'started', 'stored')
if run[1] then
  local runningMs = now - tonumber(run[3])
  if runningMs < ttlMs and (run[4] or runningMs < leaseMs) then
    if run[2] ~= ARGV[1] then return {'mismatch'} end
    if run[4] then return {'done', run[4]} end
    return {'running', string.format('%.0f', runningMs)}
  end
  redis.call('DEL', KEYS[1])
end
redis.call('HSET', KEYS[1], 'run', ARGV[2], 'body', ARGV[1], 'started', string.format('%.0f', now))
redis.call('PEXPIRE', KEYS[1], ttlMs)
return {'new'}
`;

/** KEYS: the entry. ARGV: run id, the stored response (JSON). Only the run that claimed the key completes it, once. */
const COMPLETE_LUA = `
if redis.call('HGET', KEYS[1], 'run') ~= ARGV[1] or redis.call('HEXISTS', KEYS[1], 'stored') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'stored', ARGV[2])
return 1
`;

/** KEYS: the entry. ARGV: run id. Releases the key, unless another run holds it or it is complete. */
const ABANDON_LUA = `
if redis.call('HGET', KEYS[1], 'run') ~= ARGV[1] or redis.call('HEXISTS', KEYS[1], 'stored') == 1 then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

/** Releases waiting for Redis past this many are dropped, oldest first (their leases release them). */
const MAX_PENDING_RELEASES = 10_000;

/**
 * Idempotency keys shared by every replica (docs/lifecycle.md): the claim, the stored answer and
 * its 24-hour TTL live in Redis, so a resend landing on any replica is replayed, told the first
 * run is still going (409) or that its body differs (422), exactly as on one process.
 *
 * While Redis is out of reach keys are claimed in a local store instead: a resend landing on the
 * same replica meanwhile is still replayed, one landing on another may run again. A claim whose
 * completion or release Redis did not take is released once it answers, so it is not stuck for its
 * lease (a resend then runs again; a completion that did land late is kept).
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  readonly #link: RedisLink;
  readonly #local: InMemoryIdempotencyStore;
  readonly #ttlMs: number;
  readonly #leaseMs: number;
  readonly #maxStoredChars: number;
  readonly #beginScript: RedisScript;
  readonly #completeScript: RedisScript;
  readonly #abandonScript: RedisScript;
  /** Entries claimed in the local store, whose completion stays local. */
  readonly #localEntries = new WeakSet<IdempotencyEntry>();
  readonly #unreleased: IdempotencyEntry[] = [];
  readonly #sending = new Set<Promise<unknown>>();
  #lastRunId = 0;

  constructor(link: RedisLink, options: IdempotencyStoreOptions = {}) {
    this.#link = link;
    this.#local = new InMemoryIdempotencyStore(options);
    this.#ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#maxStoredChars = options.maxStoredChars ?? DEFAULT_MAX_STORED_CHARS;
    this.#beginScript = redisScript(link, 'idempotency_begin', 1, BEGIN_LUA);
    this.#completeScript = redisScript(link, 'idempotency_complete', 1, COMPLETE_LUA);
    this.#abandonScript = redisScript(link, 'idempotency_abandon', 1, ABANDON_LUA);
    link.onResync(() => this.flush());
  }

  async begin(request: IdempotencyBeginRequest): Promise<IdempotencyBegin> {
    if (this.#link.up) {
      const entry: IdempotencyEntry = { storageKey: this.#storageKey(request), runId: ++this.#lastRunId };
      try {
        const reply = (await this.#beginScript([entry.storageKey], [request.bodyHash, this.#runName(entry), this.#ttlMs, this.#leaseMs])) as string[];
        switch (reply[0]) {
          case 'new':
            return { state: 'new', entry };
          case 'mismatch':
            return { state: 'mismatch' };
          case 'running':
            return { state: 'running', retryAfterMs: runningRetryAfterMs(Number(reply[1])) };
          case 'done':
            return { state: 'done', stored: JSON.parse(reply[1] ?? '') as StoredResponse };
        }
      } catch {
        // Claimed, perhaps, before the reply was lost: released once Redis answers again.
        this.#releaseLater(entry);
      }
    }
    const begun = await this.#local.begin(request);
    if (begun.state === 'new') this.#localEntries.add(begun.entry);
    return begun;
  }

  complete(entry: IdempotencyEntry, stored: StoredResponse): void {
    if (this.#localEntries.has(entry)) return this.#local.complete(entry, stored);
    // Too large to keep: released instead, so a resend runs again, as in one process.
    if (charsOf(stored) > this.#maxStoredChars) return this.abandon(entry);
    this.#send(entry, () => this.#completeScript([entry.storageKey], [this.#runName(entry), JSON.stringify(stored)]));
  }

  abandon(entry: IdempotencyEntry): void {
    if (this.#localEntries.has(entry)) return this.#local.abandon(entry);
    this.#send(entry, () => this.#release(entry));
  }

  /** Resolves once every completion and release made so far reached Redis; rejects when some did not. */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.#sending]);
    const entries = this.#unreleased.splice(0);
    const results = await Promise.allSettled(entries.map((entry) => this.#release(entry)));
    const failed = entries.filter((_, index) => results[index]?.status === 'rejected');
    if (failed.length === 0) return;
    this.#unreleased.unshift(...failed);
    throw new Error(`Redis did not take ${failed.length} idempotency release(s); they are kept for the next try`);
  }

  #send(entry: IdempotencyEntry, call: () => Promise<unknown>): void {
    if (!this.#link.up) return this.#releaseLater(entry);
    const sending = call()
      .catch(() => this.#releaseLater(entry))
      .finally(() => this.#sending.delete(sending));
    this.#sending.add(sending);
  }

  #release(entry: IdempotencyEntry): Promise<unknown> {
    return this.#abandonScript([entry.storageKey], [this.#runName(entry)]);
  }

  #releaseLater(entry: IdempotencyEntry): void {
    this.#unreleased.push(entry);
    if (this.#unreleased.length > MAX_PENDING_RELEASES) this.#unreleased.shift();
  }

  /** Caller keys can be long: Redis gets a digest of scope and key, never the key itself. */
  #storageKey(request: IdempotencyBeginRequest): string {
    return this.#link.key(`idempotency:${createHash('sha256').update(JSON.stringify([request.scope, request.key])).digest('hex')}`);
  }

  #runName(entry: IdempotencyEntry): string {
    return `${this.#link.replicaId}:${entry.runId}`;
  }
}
