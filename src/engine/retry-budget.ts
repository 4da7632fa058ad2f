import type { RouteConfig } from '../config/schema.js';

type BudgetConfig = RouteConfig['retry_budget'];

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

  /** `onExhausted` hears each retry the spent budget refused. */
  constructor(config: BudgetConfig, now: () => number = Date.now, onExhausted?: () => void) {
    this.#config = config;
    this.#now = now;
    this.#onExhausted = onExhausted;
    this.#tokens = this.#capacity();
    this.#updatedAtMs = now();
  }

  /** A reload may change the numbers; the tokens already in the bucket stay. */
  configure(config: BudgetConfig): void {
    this.#refill();
    this.#config = config;
    this.#tokens = Math.min(this.#tokens, this.#capacity());
  }

  /** Takes a token for one retry; false when the budget is spent. */
  tryRetry(): boolean {
    this.#refill();
    if (this.#tokens < 1) {
      this.#onExhausted?.();
      return false;
    }
    this.#tokens -= 1;
    return true;
  }

  recordSuccess(): void {
    this.#refill();
    this.#tokens = Math.min(this.#capacity(), this.#tokens + this.#config.ratio);
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

  /** `onExhausted` hears each retry a route's spent budget refused, with the route. */
  constructor(now: () => number = Date.now, onExhausted?: (route: string) => void) {
    this.#now = now;
    this.#onExhausted = onExhausted;
  }

  for(route: string, config: BudgetConfig): RetryBudget {
    let budget = this.#byRoute.get(route);
    if (!budget) {
      const onExhausted = this.#onExhausted;
      budget = new RetryBudget(config, this.#now, onExhausted && (() => onExhausted(route)));
      this.#byRoute.set(route, budget);
    } else {
      budget.configure(config);
    }
    return budget;
  }
}
