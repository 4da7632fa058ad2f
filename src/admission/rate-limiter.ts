/**
 * Per-key request and token rate limits (`rpm`, `tpm`), as token buckets.
 *
 * Why buckets rather than a sliding window: a bucket is three numbers per key and limit whatever
 * the traffic (a sliding log keeps every request of the last minute), the time until a request
 * fits is exact arithmetic, a bucket can go negative, which is how output tokens learned only
 * after the answer are charged, and it is the algorithm Anthropic documents for its own limits
 * (capacity replenished continuously rather than reset each minute), so callers meet the same
 * shape of limit at the gateway as behind it. The price: a full bucket admits a burst of a whole
 * minute's allowance at once.
 */

export type RateLimitName = 'rpm' | 'tpm';

export interface RateAdmissionRequest {
  keyId: string;
  /** Requests per minute; null or absent: unlimited. Positive when set. */
  rpm?: number | null;
  /** Tokens per minute; null or absent: unlimited. Positive when set. */
  tpm?: number | null;
  /** The request's input tokens, estimated before any provider counted them. */
  estimatedTokens: number;
  nowMs: number;
}

/** What `settle` needs to correct the token charge once the real usage is known. */
export interface RateTicket {
  readonly keyId: string;
  /** The key's tokens-per-minute limit when admitted; undefined: no token limit to settle. */
  readonly tpm: number | undefined;
  readonly estimatedTokens: number;
}

export type RateRefusal = { ok: false; limit: RateLimitName; retryAfterMs: number };

export type RateAdmission = { ok: true; ticket: RateTicket } | RateRefusal;

/** The seam for a shared (Redis) implementation when the gateway runs as several replicas. */
export interface RateLimiter {
  /** Admits a request and charges it (one request, its estimated tokens), or says how long to wait. */
  admit(request: RateAdmissionRequest): RateAdmission;
  /** Charges (or refunds) the difference between the estimate and the tokens the request really used. */
  settle(ticket: RateTicket, actualTokens: number, nowMs: number): void;
}

/**
 * Bucket levels are kept in token-milliseconds (tokens × the window): a bucket for a limit of L
 * per minute then refills by exactly L per millisecond, so every level and wait is an integer
 * and a refusal's retry-after is exact rather than a float a millisecond off.
 */
export const WINDOW_MS = 60_000;

interface Bucket {
  /** Tokens × WINDOW_MS available at `atMs`; below zero after a charge larger than what was there. */
  level: number;
  atMs: number;
  /** The limit (per minute) it refills at and is capped by, as last given. */
  limit: number;
}

/** A key's bucket levels (token-milliseconds) at a time, and the limits they refill at. */
export interface BucketLevels {
  requests?: { level: number; limit: number };
  tokens?: { level: number; limit: number };
  atMs: number;
}

interface KeyBuckets {
  requests?: Bucket;
  tokens?: Bucket;
}

/**
 * Buckets for every key that used its limits in the last minute or so, in this process. A bucket
 * that has refilled to its capacity is indistinguishable from a new one, so a sweep once a window
 * drops those: memory follows the keys active lately, and dropping loses nothing.
 */
export class InMemoryRateLimiter implements RateLimiter {
  readonly #keys = new Map<string, KeyBuckets>();
  #sweptAtMs = Number.NEGATIVE_INFINITY;

  admit(request: RateAdmissionRequest): RateAdmission {
    return this.refusal(request) ?? { ok: true, ticket: this.charge(request) };
  }

  /**
   * Which limit the request does not fit now and how long until it does, charging nothing;
   * undefined when it fits. With `charge` after it, a request is admitted against several keys'
   * buckets (a key's and its team's) or against none.
   */
  refusal(request: RateAdmissionRequest): RateRefusal | undefined {
    const { rpm, tpm, nowMs } = request;
    this.#sweepEvery(WINDOW_MS, nowMs);
    if (!rpm && !tpm) return undefined;
    const { requests, tokens } = this.#bucketsAt(request);
    const requestsWaitMs = requests ? waitMs(requests, 1) : 0;
    // A request larger than the whole limit waits for a full bucket, then takes it into debt:
    // refusing it forever would make the limit a size cap the caller cannot see.
    const tokensWaitMs = tokens ? waitMs(tokens, Math.min(wholeTokens(request.estimatedTokens), tokens.limit)) : 0;
    if (requestsWaitMs <= 0 && tokensWaitMs <= 0) return undefined;
    // Both must have room: the caller is told the longer wait.
    return tokensWaitMs > requestsWaitMs ? { ok: false, limit: 'tpm', retryAfterMs: tokensWaitMs } : { ok: false, limit: 'rpm', retryAfterMs: requestsWaitMs };
  }

  /** Charges one request and its estimated tokens, whether they fit or not (`refusal` says whether they do). */
  charge(request: RateAdmissionRequest): RateTicket {
    const { keyId, rpm, tpm } = request;
    const estimatedTokens = wholeTokens(request.estimatedTokens);
    if (rpm || tpm) {
      const { requests, tokens } = this.#bucketsAt(request);
      if (requests) requests.level -= WINDOW_MS;
      if (tokens) tokens.level -= estimatedTokens * WINDOW_MS;
    }
    return { keyId, tpm: tpm || undefined, estimatedTokens };
  }

  settle(ticket: RateTicket, actualTokens: number, nowMs: number): void {
    const { tpm } = ticket;
    if (!tpm) return;
    const extraTokens = wholeTokens(actualTokens) - ticket.estimatedTokens;
    if (extraTokens === 0) return;
    // A key swept meanwhile was full: the new full bucket `refilled` makes is the same state.
    const buckets = this.#bucketsOf(ticket.keyId);
    const tokens = (buckets.tokens = refilled(buckets.tokens, tpm, nowMs));
    // A refund cannot fill the bucket past its capacity.
    tokens.level = Math.min(tpm * WINDOW_MS, tokens.level - extraTokens * WINDOW_MS);
  }

  /**
   * Starts a key's buckets where another holder of them last saw them (the shared state, before
   * it became unreachable), unless this limiter holds the key already. Levels in token-milliseconds.
   */
  restore(keyId: string, levels: BucketLevels): void {
    if (this.#keys.has(keyId)) return;
    const { atMs } = levels;
    this.#keys.set(keyId, {
      ...(levels.requests ? { requests: { level: levels.requests.level, atMs, limit: levels.requests.limit } } : {}),
      ...(levels.tokens ? { tokens: { level: levels.tokens.level, atMs, limit: levels.tokens.limit } } : {}),
    });
  }

  /** Keys with state in memory (for tests and metrics). */
  get trackedKeys(): number {
    return this.#keys.size;
  }

  /** The key's buckets for its limits, refilled to `nowMs`. */
  #bucketsAt({ keyId, rpm, tpm, nowMs }: RateAdmissionRequest): KeyBuckets {
    const buckets = this.#bucketsOf(keyId);
    return {
      requests: rpm ? (buckets.requests = refilled(buckets.requests, rpm, nowMs)) : undefined,
      tokens: tpm ? (buckets.tokens = refilled(buckets.tokens, tpm, nowMs)) : undefined,
    };
  }

  #bucketsOf(keyId: string): KeyBuckets {
    let buckets = this.#keys.get(keyId);
    if (!buckets) {
      buckets = {};
      this.#keys.set(keyId, buckets);
    }
    return buckets;
  }

  #sweepEvery(intervalMs: number, nowMs: number): void {
    if (nowMs - this.#sweptAtMs < intervalMs) return;
    this.#sweptAtMs = nowMs;
    for (const [keyId, buckets] of this.#keys) {
      if (isFullAt(buckets.requests, nowMs) && isFullAt(buckets.tokens, nowMs)) this.#keys.delete(keyId);
    }
  }
}

/**
 * A bucket brought up to `nowMs` at `limit`, or a full one for a key not seen (or swept) before.
 * A clock that steps back refills nothing.
 */
function refilled(bucket: Bucket | undefined, limit: number, nowMs: number): Bucket {
  if (!bucket) return { level: limit * WINDOW_MS, atMs: nowMs, limit };
  bucket.level = Math.min(limit * WINDOW_MS, levelAt(bucket, nowMs));
  bucket.atMs = Math.max(bucket.atMs, nowMs);
  bucket.limit = limit;
  return bucket;
}

function levelAt(bucket: Bucket, nowMs: number): number {
  return bucket.level + Math.max(0, nowMs - bucket.atMs) * bucket.limit;
}

/** Milliseconds until `bucket` holds `needed` tokens; 0 when it does now. */
function waitMs(bucket: Bucket, needed: number): number {
  const missing = needed * WINDOW_MS - bucket.level;
  return missing <= 0 ? 0 : Math.ceil(missing / bucket.limit);
}

function isFullAt(bucket: Bucket | undefined, nowMs: number): boolean {
  return bucket === undefined || levelAt(bucket, nowMs) >= bucket.limit * WINDOW_MS;
}

/** Token counts are whole and non-negative, whatever an estimate or a provider said. */
export function wholeTokens(count: number): number {
  return Number.isFinite(count) && count > 0 ? Math.ceil(count) : 0;
}
