import { healthScripts, type HealthScripts } from './health-scripts.js';
import type { RedisLink } from './redis-link.js';

/** A bucket nobody retries on for an hour goes; the next retry starts it full, as a new process would. */
const BUCKET_TTL_S = 3_600;
const CREDIT_EVERY_MS = 1_000;

interface BucketFigures {
  capacity: number;
  refillPerSecond: number;
  creditPerSuccess: number;
}

/**
 * Each route's retry budget as one token bucket for the whole fleet, in Redis. A retry takes its
 * token in one bounded call (the retry path may wait for Redis; the first attempt never does);
 * successes are counted here and credited once a second in one call per route. While Redis is
 * down `take` answers undefined and the route's bucket in this process decides; successes
 * counted meanwhile went to that bucket too, so they are not credited twice.
 */
export class FleetRetryBuckets {
  readonly #link: RedisLink;
  readonly #scripts: HealthScripts;
  readonly #successes = new Map<string, { count: number; bucket: BucketFigures }>();
  readonly #timer: NodeJS.Timeout;

  constructor(link: RedisLink) {
    this.#link = link;
    this.#scripts = healthScripts(link.commands);
    this.#timer = setInterval(() => void this.flush(), CREDIT_EVERY_MS).unref();
  }

  take(route: string, bucket: BucketFigures): Promise<boolean | undefined> | undefined {
    if (!this.#link.up) return undefined;
    return this.#call(route, 'take', bucket, 0).then(
      (granted) => granted === 1,
      () => undefined,
    );
  }

  credit(route: string, bucket: BucketFigures): void {
    const counted = this.#successes.get(route);
    this.#successes.set(route, { count: (counted?.count ?? 0) + 1, bucket });
  }

  /** Credits the successes counted since the last flush. */
  async flush(): Promise<void> {
    const batches = [...this.#successes];
    this.#successes.clear();
    if (!this.#link.up) return;
    await Promise.all(batches.map(([route, { count, bucket }]) => this.#call(route, 'credit', bucket, count * bucket.creditPerSuccess).catch(() => undefined)));
  }

  close(): void {
    clearInterval(this.#timer);
  }

  #call(route: string, op: 'take' | 'credit', bucket: BucketFigures, credit: number): Promise<number> {
    return this.#scripts.retryBucket(this.#link.key(`retry-budget:${route}`), op, bucket.capacity, bucket.refillPerSecond, credit, BUCKET_TTL_S);
  }
}
