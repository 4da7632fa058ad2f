import type { AttemptRecord } from '../core/attempt-record.js';
import { costMicros, type Price } from '../metering/price.js';
import type { SpendRow } from '../core/spend-row.js';
import type { RequestOrigin } from '../core/request-origin.js';

export interface SpendRowsInput {
  requestId: string;
  keyId: string | null;
  keyName: string | null;
  route: string | null;
  origin: RequestOrigin;
  /** When the request started: every row of a request falls in the same budget period. */
  createdMs: number;
  attempts: readonly AttemptRecord[];
  /** The price of the target an attempt went to (override, then catalog); undefined if unknown. */
  priceOf: (attempt: AttemptRecord) => Price | undefined;
}

/**
 * The ledger rows for a finished request: one per attempt that consumed tokens, whether it
 * succeeded or not, so a request that recovered after a billed failure shows both. An attempt
 * without usage (refused, or failed before the provider counted anything) has no row; one with
 * estimated usage (an interrupted stream) has an estimated row. Pure: no clock, no I/O.
 */
export function spendRowsOf(input: SpendRowsInput): SpendRow[] {
  const rows: SpendRow[] = [];
  for (const attempt of input.attempts) {
    const usage = attempt.usage;
    if (!usage || !(usage.inputTokens > 0 || usage.outputTokens > 0)) continue;
    const price = input.priceOf(attempt);
    rows.push({
      requestId: input.requestId,
      attemptN: attempt.n,
      keyId: input.keyId,
      keyName: input.keyName,
      route: input.route,
      connection: attempt.connection,
      provider: attempt.provider,
      model: attempt.model,
      inputTokens: tokenCount(usage.inputTokens),
      outputTokens: tokenCount(usage.outputTokens),
      cacheReadTokens: tokenCount(usage.cacheReadTokens),
      cacheWriteTokens: tokenCount(usage.cacheWriteTokens),
      cacheWrite1hTokens: tokenCount(usage.cacheWrite1hTokens),
      costMicros: price ? costMicros(usage, price) : 0,
      estimated: usage.estimated === true,
      priced: price !== undefined,
      origin: input.origin,
      createdMs: input.createdMs,
    });
  }
  return rows;
}

/** Stored counts are whole and non-negative, as `costMicros` counted them, whatever a provider sent. */
function tokenCount(count: number | undefined): number {
  return count !== undefined && Number.isFinite(count) && count > 0 ? Math.round(count) : 0;
}
