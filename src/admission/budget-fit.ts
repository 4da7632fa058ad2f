import { costMicros, type Price } from '../metering/price.js';
import { maxCostMicros } from './max-cost.js';

/**
 * The fewest output tokens a budget may lower a request's output cap to (a route's
 * `budget_fit: clamp`): an answer cut shorter than this is hardly one, so the request is refused.
 */
export const MIN_FITTED_OUTPUT_TOKENS = 256;

/** What a request may reserve of its key's budget: its maximum, and the least it may be lowered to. */
export interface ReservationRange {
  maxCostMicros: number;
  /** Equal to `maxCostMicros` when the request cannot be lowered. */
  minCostMicros: number;
  /** The output cap `minCostMicros` pays for. */
  minOutputTokens: number;
}

/**
 * The reservation range of a request with `outputCapTokens` of output at the dearest of `prices`.
 * A lowerable request may go down to `MIN_FITTED_OUTPUT_TOKENS`, or stay whole when its own cap is
 * already smaller.
 */
export function reservationRange(
  estimatedInputTokens: number,
  outputCapTokens: number,
  prices: readonly (Price | undefined)[],
  lowerable: boolean,
): ReservationRange {
  const maxMicros = maxCostMicros(estimatedInputTokens, outputCapTokens, prices);
  const minOutputTokens = lowerable ? Math.min(outputCapTokens, MIN_FITTED_OUTPUT_TOKENS) : outputCapTokens;
  const minMicros = minOutputTokens === outputCapTokens ? maxMicros : maxCostMicros(estimatedInputTokens, minOutputTokens, prices);
  return { maxCostMicros: maxMicros, minCostMicros: minMicros, minOutputTokens };
}

/**
 * The most output tokens `reservedMicros` pays for beside the input, at every one of `prices`
 * (failover can reach any of them), so the lowered request cannot cost more than was reserved.
 * Infinity when no known price charges for output.
 */
export function outputTokensWithin(reservedMicros: number, estimatedInputTokens: number, prices: readonly (Price | undefined)[]): number {
  let tokens = Number.POSITIVE_INFINITY;
  for (const price of prices) if (price) tokens = Math.min(tokens, outputTokensAt(price, reservedMicros, estimatedInputTokens));
  return tokens;
}

function outputTokensAt(price: Price, reservedMicros: number, inputTokens: number): number {
  const cost = (outputTokens: number): number => costMicros({ inputTokens, outputTokens }, price);
  if (cost(0) > reservedMicros) return 0;
  // Output the ledger prices at nothing (no rate, or one below its precision) never runs out.
  if (costMicros({ inputTokens: 0, outputTokens: 1e12 }, price) === 0) return Number.POSITIVE_INFINITY;
  // The price is micro-dollars per token and the cost is rounded once, half up; the float guess
  // is then corrected against the exact cost by a step or two.
  let tokens = Math.max(0, Math.floor((reservedMicros + 0.5 - Math.round(inputTokens) * price.inputPerMtok) / price.outputPerMtok));
  while (tokens > 0 && cost(tokens) > reservedMicros) tokens--;
  while (cost(tokens + 1) <= reservedMicros) tokens++;
  return tokens;
}
