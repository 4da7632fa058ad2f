import type { HedgeConfig } from '../config/schema.js';
import type { RecentFirstTokens } from './first-token-samples.js';
import { MIN_FIRST_TOKEN_SAMPLES } from './first-token-evidence.js';

/** `after_ms: auto` hedges the slowest twentieth of a deployment's answers: about one extra request in twenty. */
const HEDGE_PERCENTILE = 0.95;

/**
 * How long an attempt may go without reaching its commit point before a hedge is started beside
 * it; undefined: no hedge. A number is used as written. `auto`: the deployment's recent p95
 * first-token time — but no hedge while it has fewer than 20 samples (a guess would either never
 * fire or double a new deployment's load), nor for an answer that comes whole, whose wait is its
 * whole generation and which first-token samples say nothing about.
 */
export function hedgeDelayMs(afterMs: HedgeConfig['after_ms'], recent: RecentFirstTokens, streamed: boolean): number | undefined {
  if (afterMs !== 'auto') return afterMs;
  if (!streamed || recent.samples < MIN_FIRST_TOKEN_SAMPLES) return undefined;
  const p95Ms = recent.quantileMs(HEDGE_PERCENTILE);
  return p95Ms === undefined ? undefined : Math.max(1, Math.ceil(p95Ms));
}
