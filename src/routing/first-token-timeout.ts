import type { TimeoutsConfig } from '../config/schema.js';
import type { RecentFirstTokens } from './first-token-samples.js';

/** Below this many recent samples `auto` knows too little about a deployment: it waits the maximum. */
export const MIN_FIRST_TOKEN_SAMPLES = 20;

/** The share of recent first tokens the timeout is built on: the slow end, not the typical one. */
export const FIRST_TOKEN_PERCENTILE = 0.99;

/**
 * A p99 of at most 128 samples is itself a noisy figure of the tail; twice it leaves room for a
 * tail heavier than the window caught, so a healthy deployment is rarely cut off.
 */
const HEADROOM = 2;

/**
 * The first-token timeout of one attempt. A number is used as written. `auto`: the deployment's
 * recent p99 first-token time × 2, scaled up by how much larger the request's input is than the
 * samples' typical one (prefill grows with the prompt), clamped to
 * [`first_token_min_ms`, `first_token_max_ms`]; the maximum with fewer than 20 samples, and for an
 * answer that comes whole (`streamedInputTokens` absent), whose wait is its whole generation.
 */
export function firstTokenTimeoutMs(
  timeouts: Pick<TimeoutsConfig, 'first_token_ms' | 'first_token_min_ms' | 'first_token_max_ms'>,
  recent: RecentFirstTokens,
  streamedInputTokens: number | undefined,
): number {
  if (timeouts.first_token_ms !== 'auto') return timeouts.first_token_ms;
  const p99Ms = recent.quantileMs(FIRST_TOKEN_PERCENTILE);
  if (streamedInputTokens === undefined || recent.samples < MIN_FIRST_TOKEN_SAMPLES || p99Ms === undefined) return timeouts.first_token_max_ms;
  // Only ever up: a short prompt is no reason to cut the tail the samples showed.
  const inputScale = Math.max(1, streamedInputTokens / Math.max(1, recent.typicalInputTokens ?? 1));
  const learnedMs = Math.ceil(p99Ms * HEADROOM * inputScale);
  return Math.min(timeouts.first_token_max_ms, Math.max(timeouts.first_token_min_ms, learnedMs));
}
