import type { RouteConfig } from '../config/schema.js';

type BudgetConfig = RouteConfig['retry_budget'];

/**
 * Routes' buckets kept for the whole fleet (replicas sharing state). `take` answers undefined when
 * the shared bucket cannot be reached now: the route's bucket in this process decides instead.
 * Successes are handed over one by one and credited to the shared bucket in batches.
 */
export interface SharedRetryBuckets {
  take(route: string, bucket: BucketFigures): Promise<boolean | undefined> | undefined;
  credit(route: string, bucket: BucketFigures): void;
}

/** A bucket's rules, the same wherever it is kept. */
export interface BucketFigures {
  capacity: number;
  refillPerSecond: number;
  creditPerSuccess: number;
}

/**
 * A route's retry budget (docs/lifecycle.md): a token bucket where a retry costs 1, a success earns
 * `ratio`, and `min_per_second` tokens accrue each second. The bucket holds at most two seconds'
 * worth of the floor (at least 2 tokens), so a burst of failures can spend only that much before
 * retries stop and only failover remains: a widespread failure cannot become a retry storm.
 */
export class RetryBudget {
  #tokens: number;
  #updatedAtMs: number;
  #config: BudgetConfig;
  readonly #now: () => number;
  readonly #onExhausted: (() => void) | undefined;
  readonly #shared: { buckets: SharedRetryBuckets; route: string } | undefined;

  /** `onExhausted` hears each retry the spent budget refused; `shared`: the fleet's bucket for the route, when there is one. */
  constructor(config: BudgetConfig, now: () => number = Date.now, onExhausted?: () => void, shared?: { buckets: SharedRetryBuckets; route: string }) {
    this.#config = config;
    this.#now = now;
    this.#onExhausted = onExhausted;
    this.#shared = shared;
    this.#tokens = this.#capacity();
    this.#updatedAtMs = now();
  }

  /** A reload may change the numbers; the tokens already in the bucket stay. */
  configure(config: BudgetConfig): void {
    this.#refill();
    this.#config = config;
    this.#tokens = Math.min(this.#tokens, this.#capacity());
  }

  /** Takes a token for one retry; false when the budget is spent. The fleet's bucket answers through one bounded call. */
  tryRetry(): boolean | Promise<boolean> {
    const taken = this.#shared?.buckets.take(this.#shared.route, this.#figures());
    if (taken === undefined) return this.#tryLocal();
    return taken.then((answer) => {
      if (answer === undefined) return this.#tryLocal();
      if (!answer) this.#onExhausted?.();
      return answer;
    });
  }

  #tryLocal(): boolean {
    this.#refill();
    if (this.#tokens < 1) {
      this.#onExhausted?.();
      return false;
    }
    this.#tokens -= 1;
    return true;
  }

  /** Credits this process's bucket (what an outage falls back to) and the fleet's. */
  recordSuccess(): void {
    this.#shared?.buckets.credit(this.#shared.route, this.#figures());
    this.#refill();
    this.#tokens = Math.min(this.#capacity(), this.#tokens + this.#config.ratio);
  }

  #figures(): BucketFigures {
    return { capacity: this.#capacity(), refillPerSecond: this.#config.min_per_second, creditPerSuccess: this.#config.ratio };
  }

  #capacity(): number {
    return Math.max(2, 2 * this.#config.min_per_second);
  }

  #refill(): void {
    const nowMs = this.#now();
    const elapsedS = (nowMs - this.#updatedAtMs) / 1000;
    this.#updatedAtMs = nowMs;
    if (elapsedS > 0) this.#tokens = Math.min(this.#capacity(), this.#tokens + elapsedS * this.#config.min_per_second);
  }
}

/** One budget per route name, kept across config reloads. */
export class RetryBudgets {
  readonly #byRoute = new Map<string, RetryBudget>();
  readonly #now: () => number;
  readonly #onExhausted: ((route: string) => void) | undefined;
  readonly #shared: SharedRetryBuckets | undefined;

  /** `onExhausted` hears each retry a route's spent budget refused, with the route; `shared`: the fleet's buckets. */
  constructor(now: () => number = Date.now, onExhausted?: (route: string) => void, shared?: SharedRetryBuckets) {
    this.#now = now;
    this.#onExhausted = onExhausted;
    this.#shared = shared;
  }

  for(route: string, config: BudgetConfig): RetryBudget {
    let budget = this.#byRoute.get(route);
    if (!budget) {
      const onExhausted = this.#onExhausted;
      budget = new RetryBudget(config, this.#now, onExhausted && (() => onExhausted(route)), this.#shared && { buckets: this.#shared, route });
      this.#byRoute.set(route, budget);
    } else {
      budget.configure(config);
    }
    return budget;
  }
}
