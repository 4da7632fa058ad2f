import type { TimeoutsConfig } from '../config/schema.js';
import type { FirstTokenSource } from '../core/attempt-record.js';
import type { EvidenceSource, FirstTokenEvidence } from './first-token-evidence.js';
import type { RecentFirstTokens } from './first-token-samples.js';

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

/**
 * A deployment is never timed below this many times the slowest first token it has shown lately
 * (an answer, or a silence the gateway cut): what it did once it may do again, and a guess that was
 * cut short must not be made again at the same length.
 */
const SHOWN_HEADROOM = 2;

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
  /**
   * The timeout is a guess about a deployment that has not shown its own speed (docs/lifecycle.md):
   * an attempt cut at it proves the guess short, not the deployment failing, and counts for nothing.
   */
  guess: boolean;
}

/**
 * The first-token timeout of one attempt. A number is used as written. `auto` (the default): the
 * deployment's own recent p99 first-token time × 2 once it has enough samples; until then a guess —
 * the same model elsewhere (× 3), another model of the connection or the route (× 4), or with no
 * evidence `COLD_FIRST_TOKEN_MS` (the maximum for a reasoning request) — raised to twice the
 * slowest first token the deployment has shown itself (`shown`: its recent answers and cut
 * silences, however few) when that is longer (`widened`): once a deployment has shown it is slower
 * than a guess, no faster deployment's pace times it again. Every one of these is a `guess` until it
 * reaches the cold guess for the request's size (or the maximum). Each is scaled up by how much larger the
 * request's input is than the samples' typical one, and clamped to [`first_token_min_ms`,
 * `first_token_max_ms`]. The maximum (`maximum`) for an
 * answer that comes whole, whose wait is its whole generation, and for the last option, where
 * cutting a slow answer short could only turn it into an error.
 */
export function firstTokenTimeout(
  timeouts: Pick<TimeoutsConfig, 'first_token_ms' | 'first_token_min_ms' | 'first_token_max_ms'>,
  evidence: FirstTokenEvidence | undefined,
  attempt: FirstTokenAttempt,
  shown: RecentFirstTokens,
): FirstTokenTimeout {
  if (timeouts.first_token_ms !== 'auto') return { timeoutMs: timeouts.first_token_ms, source: 'configured', guess: false };
  const maximum: FirstTokenTimeout = { timeoutMs: timeouts.first_token_max_ms, source: 'maximum', guess: false };
  const { streamedInputTokens } = attempt;
  if (streamedInputTokens === undefined || attempt.lastOption) return maximum;
  // Silence for the whole maximum is a failure, whatever was guessed: no attempt may wait longer.
  const bounded = (ms: number, source: FirstTokenSource, guess: boolean): FirstTokenTimeout => {
    const timeoutMs = Math.min(timeouts.first_token_max_ms, Math.max(timeouts.first_token_min_ms, Math.ceil(ms)));
    return { timeoutMs, source, guess: guess && timeoutMs < timeouts.first_token_max_ms };
  };
  const p99Ms = evidence?.recent.quantileMs(FIRST_TOKEN_PERCENTILE);
  if (evidence?.source === 'own' && p99Ms !== undefined) return bounded(p99Ms * HEADROOM.own * inputScale(streamedInputTokens, evidence.recent), 'own', false);
  const coldMs = COLD_FIRST_TOKEN_MS * Math.max(1, streamedInputTokens / COLD_INPUT_TOKENS);
  let guess: { ms: number; source: FirstTokenSource };
  if (evidence === undefined || p99Ms === undefined) {
    if (attempt.reasoning) return maximum;
    guess = { ms: coldMs, source: 'cold' };
  } else {
    guess = { ms: p99Ms * HEADROOM[evidence.source] * inputScale(streamedInputTokens, evidence.recent), source: evidence.source };
  }
  const widenedMs = SHOWN_HEADROOM * (shown.quantileMs(1) ?? 0);
  // Widening is still guessing until it reaches the cold guess, which is already far past a healthy answer.
  return widenedMs > guess.ms ? bounded(widenedMs, 'widened', widenedMs < coldMs) : bounded(guess.ms, guess.source, true);
}

/** How much larger the request is than the samples' typical one; only ever up: a short prompt is no reason to cut the tail the samples showed. */
function inputScale(streamedInputTokens: number, recent: RecentFirstTokens): number {
  return Math.max(1, streamedInputTokens / Math.max(1, recent.typicalInputTokens ?? 1));
}
