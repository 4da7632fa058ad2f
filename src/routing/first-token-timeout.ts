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

/** What one attempt's first-token timeout depends on besides the deployment's samples. */
export interface FirstTokenAttempt {
  /** The request's estimated input tokens, for a streamed answer; absent for one that comes whole. */
  streamedInputTokens: number | undefined;
  /** No target of the plan comes after this one: a timeout would leave the caller nothing but an error. */
  lastOption: boolean;
}

/**
 * The first-token timeout of one attempt. A number is used as written. `auto`: the deployment's
 * recent p99 first-token time × 2, scaled up by how much larger the request's input is than the
 * samples' typical one (prefill grows with the prompt), clamped to
 * [`first_token_min_ms`, `first_token_max_ms`]. The maximum with fewer than 20 samples; for an
 * answer that comes whole, whose wait is its whole generation; and for the last option, where
 * cutting a slow answer short could only turn it into an error.
 */
export function firstTokenTimeoutMs(
  timeouts: Pick<TimeoutsConfig, 'first_token_ms' | 'first_token_min_ms' | 'first_token_max_ms'>,
  recent: RecentFirstTokens,
  attempt: FirstTokenAttempt,
): number {
  if (timeouts.first_token_ms !== 'auto') return timeouts.first_token_ms;
  const { streamedInputTokens } = attempt;
  const p99Ms = recent.quantileMs(FIRST_TOKEN_PERCENTILE);
  if (streamedInputTokens === undefined || attempt.lastOption || recent.samples < MIN_FIRST_TOKEN_SAMPLES || p99Ms === undefined) {
    return timeouts.first_token_max_ms;
  }
  // Only ever up: a short prompt is no reason to cut the tail the samples showed.
  const inputScale = Math.max(1, streamedInputTokens / Math.max(1, recent.typicalInputTokens ?? 1));
  const learnedMs = Math.ceil(p99Ms * HEADROOM * inputScale);
  return Math.min(timeouts.first_token_max_ms, Math.max(timeouts.first_token_min_ms, learnedMs));
}
