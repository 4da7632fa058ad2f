import type { RouteConfig } from '../config/schema.js';

/**
 * Delay before same-target retry number `retry` (0-based): exponential from `base_ms`, capped at
 * `max_ms`; with full jitter the delay is uniform in [0, cap], which spreads synchronized callers.
 */
export function backoffDelayMs(retry: number, backoff: RouteConfig['backoff'], random: () => number = Math.random): number {
  const capMs = Math.min(backoff.max_ms, backoff.base_ms * 2 ** retry);
  return backoff.jitter === 'full' ? Math.floor(random() * capMs) : capMs;
}
