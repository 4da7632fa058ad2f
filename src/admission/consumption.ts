/** One priced charge of a request: a ledger row fits. */
export interface Charge {
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
}

/** What a finished request really used, across all its attempts. */
export interface Consumption {
  /** Input plus output tokens: what the key's tokens-per-minute limit is settled with. */
  tokens: number;
  /** What its budget reservation is settled with. */
  costMicros: number;
}

/**
 * The sum of a request's charges — its ledger rows, billed failures included — so the gate's
 * running total is settled with exactly what the ledger records, never with a second pricing.
 */
export function consumptionOf(charges: readonly Charge[]): Consumption {
  let tokens = 0;
  let micros = 0;
  for (const charge of charges) {
    tokens += charge.inputTokens + charge.outputTokens;
    micros += charge.costMicros;
  }
  return { tokens, costMicros: micros };
}
