import { costMicros, type Price } from '../metering/price.js';

/**
 * Output tokens a request is assumed to be able to generate when its caller set no `max_tokens`:
 * what the Anthropic adapter sends upstream in that case. OpenAI-style providers have no such
 * default (a model may write up to its own output limit), so a reservation is a true maximum
 * there only if the same cap is also sent upstream.
 */
export const DEFAULT_OUTPUT_CAP_TOKENS = 4_096;

/**
 * The most a request can cost, in micro-dollars: its estimated input and `outputCapTokens` of
 * output at the dearest of the prices it may be served at (every target of its route, since
 * failover can reach any of them). All input is priced at the full input rate, as if nothing
 * were cached. An unknown price (undefined) adds nothing: the ledger bills such usage at 0.
 */
export function maxCostMicros(estimatedInputTokens: number, outputCapTokens: number, prices: readonly (Price | undefined)[]): number {
  const usage = { inputTokens: estimatedInputTokens, outputTokens: outputCapTokens };
  let maxMicros = 0;
  for (const price of prices) if (price) maxMicros = Math.max(maxMicros, costMicros(usage, price));
  return maxMicros;
}
