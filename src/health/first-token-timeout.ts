import type { TimeoutsConfig } from '../config/schema.js';
import type { FirstTokenSource } from '../core/attempt-record.js';
import type { EvidenceSource, FirstTokenEvidence } from './first-token-evidence.js';

/** The share of recent first tokens the timeout is built on: the slow end, not the typical one. */
export const FIRST_TOKEN_PERCENTILE = 0.99;

/**
 * How far past the evidence's p99 the timeout goes. A p99 of at most 128 samples is itself a noisy
 * figure of the tail; twice it leaves room for a tail heavier than the window caught. Borrowed
 * evidence is a guess about this deployment, so it gets more room the further it was borrowed.
 */
const HEADROOM: Readonly<Record<EvidenceSource, number>> = { own: 2, same_model: 3, connection: 4, route: 4 };

/**
 * With no evidence at all (a cold gateway), a non-reasoning model's first token of a prompt of up
 * to `COLD_INPUT_TOKENS` is waited for this long: far beyond a healthy one's (typically under
 * 2 s), short enough that a silent target costs the caller seconds, not half a minute. Longer
 * prompts get proportionally more (prefill grows with the prompt), up to the maximum.
 */
const COLD_FIRST_TOKEN_MS = 8_000;
const COLD_INPUT_TOKENS = 8_000;


/** What one attempt's first-token timeout depends on besides the evidence. */
export interface FirstTokenAttempt {
  /** The request's estimated input tokens, for a streamed answer; absent for one that comes whole. */
  streamedInputTokens: number | undefined;
  /** No target of the plan comes after this one: a timeout would leave the caller nothing but an error. */
  lastOption: boolean;
  /** The request asks for reasoning, or the target's model reasons by default. */
  reasoning: boolean;
}

export interface FirstTokenTimeout {
  timeoutMs: number;
  source: FirstTokenSource;
}

/**
 * The first-token timeout of one attempt. A number is used as written. `auto` (the default): the
 * evidence's recent p99 first-token time × its headroom, scaled up by how much larger the request's
 * input is than the samples' typical one, clamped to [`first_token_min_ms`, `first_token_max_ms`].
 * Without evidence: `COLD_FIRST_TOKEN_MS` (scaled likewise) for a non-reasoning request, the
 * maximum for a reasoning one, which may think for longer than any cold guess. The maximum, too,
 * for an answer that comes whole, whose wait is its whole generation, and for the last option,
 * where cutting a slow answer short could only turn it into an error.
 */
export function firstTokenTimeout(
  timeouts: Pick<TimeoutsConfig, 'first_token_ms' | 'first_token_min_ms' | 'first_token_max_ms'>,
  evidence: FirstTokenEvidence | undefined,
  attempt: FirstTokenAttempt,
): FirstTokenTimeout {
  if (timeouts.first_token_ms !== 'auto') return { timeoutMs: timeouts.first_token_ms, source: 'configured' };
  const maximum: FirstTokenTimeout = { timeoutMs: timeouts.first_token_max_ms, source: 'maximum' };
  const { streamedInputTokens } = attempt;
  if (streamedInputTokens === undefined || attempt.lastOption) return maximum;
  const clamp = (ms: number) => Math.min(timeouts.first_token_max_ms, Math.max(timeouts.first_token_min_ms, Math.ceil(ms)));
  const p99Ms = evidence?.recent.quantileMs(FIRST_TOKEN_PERCENTILE);
  if (evidence === undefined || p99Ms === undefined) {
    if (attempt.reasoning) return maximum;
    return { timeoutMs: clamp(COLD_FIRST_TOKEN_MS * Math.max(1, streamedInputTokens / COLD_INPUT_TOKENS)), source: 'cold' };
  }
  // Only ever up: a short prompt is no reason to cut the tail the samples showed.
  const inputScale = Math.max(1, streamedInputTokens / Math.max(1, evidence.recent.typicalInputTokens ?? 1));
  return { timeoutMs: clamp(p99Ms * HEADROOM[evidence.source] * inputScale), source: evidence.source };
}
