import type { AttemptRecord } from '../core/attempt-record.js';
import { costMicros, type Price } from '../metering/price.js';

/** What a finished request really used, across all its attempts. */
export interface Consumption {
  /** Input plus output tokens: what the key's tokens-per-minute limit is settled with. */
  tokens: number;
  /** What its budget reservation is settled with. */
  costMicros: number;
}

/**
 * Tokens and cost of every attempt that reported (or was given estimated) usage, billed failures
 * included, priced as the ledger prices them — same `costMicros`, and `priceOf` should be the
 * ledger's own (`deploymentPrice`) — so the gate's running total agrees with the ledger's rows.
 */
export function consumptionOf(attempts: readonly AttemptRecord[], priceOf: (attempt: AttemptRecord) => Price | undefined): Consumption {
  let tokens = 0;
  let micros = 0;
  for (const attempt of attempts) {
    const usage = attempt.usage;
    if (!usage) continue;
    tokens += wholeTokens(usage.inputTokens) + wholeTokens(usage.outputTokens);
    const price = priceOf(attempt);
    if (price) micros += costMicros(usage, price);
  }
  return { tokens, costMicros: micros };
}

function wholeTokens(count: number): number {
  return Number.isFinite(count) && count > 0 ? Math.round(count) : 0;
}
