import type { Usage } from '../core/usage.js';

/**
 * The most tokens one attempt may be reported to have used, per count. Ten times the largest
 * context window any model offers, so no real report comes near it; at the dearest list price it
 * still costs a finite, exactly representable number of micro-dollars.
 */
export const MAX_REPORTED_TOKENS = 100_000_000;

/** The gateway's own count of a request's tokens, used where the provider's cannot be trusted. */
export interface TokenEstimate {
  inputTokens: number;
  outputTokens: number;
}

/**
 * Usage an upstream reported, treated as the untrusted input it is: returned as is when every
 * count is a whole number from 0 to `MAX_REPORTED_TOKENS` (every real report). Otherwise — a
 * fraction, a negative count, 1e308 — input and output counts that fail are replaced by the
 * gateway's estimate, breakdowns that fail (cache, reasoning) are dropped, so cached tokens are
 * billed at the full input price, and the usage is marked `estimated`. One absurd report must
 * not turn a cost into Infinity, which no budget, ledger or metric could hold again.
 */
export function trustedUsage(reported: Usage, estimate: () => TokenEstimate): Usage {
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, cacheWrite1hTokens, reasoningTokens } = reported;
  if (
    isTokenCount(inputTokens) &&
    isTokenCount(outputTokens) &&
    isOptionalTokenCount(cacheReadTokens) &&
    isOptionalTokenCount(cacheWriteTokens) &&
    isOptionalTokenCount(cacheWrite1hTokens) &&
    isOptionalTokenCount(reasoningTokens)
  ) {
    return reported;
  }
  const estimated = isTokenCount(inputTokens) && isTokenCount(outputTokens) ? undefined : estimate();
  const usage: Usage = {
    inputTokens: isTokenCount(inputTokens) ? inputTokens : estimated!.inputTokens,
    outputTokens: isTokenCount(outputTokens) ? outputTokens : estimated!.outputTokens,
    estimated: true,
  };
  if (cacheReadTokens !== undefined && isTokenCount(cacheReadTokens)) usage.cacheReadTokens = cacheReadTokens;
  if (cacheWriteTokens !== undefined && isTokenCount(cacheWriteTokens)) usage.cacheWriteTokens = cacheWriteTokens;
  if (cacheWrite1hTokens !== undefined && isTokenCount(cacheWrite1hTokens)) usage.cacheWrite1hTokens = cacheWrite1hTokens;
  if (reasoningTokens !== undefined && isTokenCount(reasoningTokens)) usage.reasoningTokens = reasoningTokens;
  return usage;
}

function isTokenCount(count: number): boolean {
  return Number.isInteger(count) && count >= 0 && count <= MAX_REPORTED_TOKENS;
}

function isOptionalTokenCount(count: number | undefined): boolean {
  return count === undefined || isTokenCount(count);
}
