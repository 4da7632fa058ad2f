/**
 * Idempotency keys (docs/lifecycle.md): a request sent with an `Idempotency-Key` can be resent safely. The
 * first one runs; a resend with the same key and body gets the stored response replayed, without
 * a new generation; the same key with another body is a caller bug (422); a resend while the
 * first is still running is told to come back (409 with retry-after). Kept 24 hours.
 *
 * What is stored, and what is not (`isReplayable`): a response is kept when resending would get
 * the same answer or must not cause a second generation — every success, and the 4xx rejections
 * that depend only on the body (moderation, invalid request, context length). A failure that
 * waiting could cure (429, 5xx, timeouts), a cancelled request and a stream cut after its commit
 * point are abandoned instead: the key is released and a resend runs again. Replaying those for
 * a day would turn a passing outage into a permanent answer for that key, and a cut stream into
 * an answer the caller can never complete; the provider may have billed the lost generation,
 * which is the price of the caller getting a whole answer.
 */
import { createHash } from 'node:crypto';

/** A response as the caller received it, replayable verbatim. */
export type StoredResponse =
  | { status: number; headers: Record<string, string>; body: string }
  /** A stream: the SSE text the caller received, replayed as one stream. */
  | { status: number; headers: Record<string, string>; sse: string };

export interface IdempotencyBeginRequest {
  /** The caller's `Idempotency-Key`. */
  key: string;
  /**
   * Whose key it is and where it was sent (e.g. the virtual key id and the endpoint; `anonymous`
   * without auth): one caller's key never replays another caller's response.
   */
  scope: string;
  /** `bodyHash` of the raw request body. */
  bodyHash: string;
  nowMs: number;
}

/** The first run's claim on a key; only its holder can complete or abandon it. */
export interface IdempotencyEntry {
  readonly storageKey: string;
  readonly runId: number;
}

export type IdempotencyBegin =
  | { state: 'new'; entry: IdempotencyEntry }
  | { state: 'running'; retryAfterMs: number }
  | { state: 'mismatch' }
  | { state: 'done'; stored: StoredResponse };

/**
 * The seam for a shared (Redis) implementation when the gateway runs as several replicas. Only
 * `begin` is awaited: `complete` and `abandon` never delay an answer.
 */
export interface IdempotencyStore {
  begin(request: IdempotencyBeginRequest): Promise<IdempotencyBegin>;
  /** Keeps the first run's response for replay. */
  complete(entry: IdempotencyEntry, stored: StoredResponse): void;
  /** Releases the key: the first run produced nothing worth replaying, a resend runs again. */
  abandon(entry: IdempotencyEntry): void;
}

/** SHA-256 (hex) of the raw body: a resend from the same client is byte-identical. */
export function bodyHash(body: string | Uint8Array): string {
  return createHash('sha256').update(body).digest('hex');
}

/** Whether a completed response with this status is kept for replay (see the module comment). */
export function isReplayable(status: number): boolean {
  if (status < 400) return true;
  return status < 500 && !RETRYABLE_CLIENT_STATUSES.has(status);
}

/** 4xx answers that say "not now" rather than "not this": timeout, conflict, too early, too many, closed. */
const RETRYABLE_CLIENT_STATUSES: ReadonlySet<number> = new Set([408, 409, 425, 429, 499]);

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyStoreOptions {
  /** How long a key is remembered after its first request; 24 h (docs/lifecycle.md). */
  ttlMs?: number;
  /**
   * A run still unfinished after this long is taken as lost (a handler that never completed nor
   * abandoned it) and the key is released. Longer than any request may last.
   */
  leaseMs?: number;
  /** At most this many keys; past it the oldest completed ones are dropped first. */
  maxEntries?: number;
  /** At most this many characters of stored responses; a larger single response is not kept. */
  maxStoredChars?: number;
}

export const DEFAULT_LEASE_MS = 30 * 60 * 1000;
const DEFAULT_MAX_ENTRIES = 10_000;
export const DEFAULT_MAX_STORED_CHARS = 64 * 1024 * 1024;

/** A resend while the first run goes on waits about as long as that run has taken, within these. */
const MIN_RUNNING_RETRY_AFTER_MS = 1_000;
const MAX_RUNNING_RETRY_AFTER_MS = 10_000;

/** How long a resend is told to wait for a first run that has been running `runningMs`. */
export function runningRetryAfterMs(runningMs: number): number {
  return Math.min(MAX_RUNNING_RETRY_AFTER_MS, Math.max(MIN_RUNNING_RETRY_AFTER_MS, runningMs));
}

interface Run {
  runId: number;
  bodyHash: string;
  startedAtMs: number;
  stored?: StoredResponse;
  storedChars: number;
}

/**
 * Idempotency keys of this process. Entries are kept in the order their first request began, and
 * every entry lives the same TTL, so the expired ones are always at the front: dropping them as
 * requests arrive costs nothing per request. Running entries are never evicted for room — that
 * would let a resend start a second generation — and they are few (one per request in flight).
 */
export class InMemoryIdempotencyStore implements IdempotencyStore {
  readonly #runs = new Map<string, Run>();
  readonly #ttlMs: number;
  readonly #leaseMs: number;
  readonly #maxEntries: number;
  readonly #maxStoredChars: number;
  #storedChars = 0;
  #lastRunId = 0;

  constructor(options: IdempotencyStoreOptions = {}) {
    this.#ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.#maxStoredChars = options.maxStoredChars ?? DEFAULT_MAX_STORED_CHARS;
  }

  async begin(request: IdempotencyBeginRequest): Promise<IdempotencyBegin> {
    const { nowMs } = request;
    this.#dropExpired(nowMs);
    const storageKey = JSON.stringify([request.scope, request.key]);
    const run = this.#runs.get(storageKey);
    if (run && !this.#isLost(run, nowMs)) {
      if (run.bodyHash !== request.bodyHash) return { state: 'mismatch' };
      if (run.stored) return { state: 'done', stored: run.stored };
      return { state: 'running', retryAfterMs: runningRetryAfterMs(nowMs - run.startedAtMs) };
    }
    if (run) this.#delete(storageKey, run);
    const runId = ++this.#lastRunId;
    this.#runs.set(storageKey, { runId, bodyHash: request.bodyHash, startedAtMs: nowMs, storedChars: 0 });
    this.#evictForRoom();
    return { state: 'new', entry: { storageKey, runId } };
  }

  complete(entry: IdempotencyEntry, stored: StoredResponse): void {
    const run = this.#current(entry);
    if (!run || run.stored) return;
    const storedChars = charsOf(stored);
    if (storedChars > this.#maxStoredChars) {
      this.#delete(entry.storageKey, run);
      return;
    }
    run.stored = stored;
    run.storedChars = storedChars;
    this.#storedChars += storedChars;
    this.#evictForRoom();
  }

  abandon(entry: IdempotencyEntry): void {
    const run = this.#current(entry);
    if (run && !run.stored) this.#delete(entry.storageKey, run);
  }

  /** Keys remembered (for tests and metrics). */
  get size(): number {
    return this.#runs.size;
  }

  /** The entry's run, unless it expired, was evicted or was replaced since. */
  #current(entry: IdempotencyEntry): Run | undefined {
    const run = this.#runs.get(entry.storageKey);
    return run?.runId === entry.runId ? run : undefined;
  }

  #isLost(run: Run, nowMs: number): boolean {
    return nowMs - run.startedAtMs >= this.#ttlMs || (!run.stored && nowMs - run.startedAtMs >= this.#leaseMs);
  }

  #dropExpired(nowMs: number): void {
    for (const [storageKey, run] of this.#runs) {
      if (nowMs - run.startedAtMs < this.#ttlMs) return;
      this.#delete(storageKey, run);
    }
  }

  /** Drops the oldest completed entries until both bounds hold (or only running ones remain). */
  #evictForRoom(): void {
    for (const [storageKey, run] of this.#runs) {
      if (this.#runs.size <= this.#maxEntries && this.#storedChars <= this.#maxStoredChars) return;
      if (run.stored) this.#delete(storageKey, run);
    }
  }

  #delete(storageKey: string, run: Run): void {
    this.#runs.delete(storageKey);
    this.#storedChars -= run.storedChars;
  }
}

/** The memory a stored response holds, in string characters (headers included). */
export function charsOf(stored: StoredResponse): number {
  let chars = 'sse' in stored ? stored.sse.length : stored.body.length;
  for (const [name, value] of Object.entries(stored.headers)) chars += name.length + value.length;
  return chars;
}
