import type { RequestOrigin } from './request-origin.js';

/**
 * One ledger entry: what one physical attempt consumed and cost. Rows are keyed by
 * (`requestId`, `attemptN`), so writing the same row twice stores it once.
 */
export interface SpendRow {
  requestId: string;
  /** The attempt's 1-based position in its request. */
  attemptN: number;
  keyId: string | null;
  keyName: string | null;
  route: string | null;
  connection: string;
  provider: string;
  /** The routed model (what the provider was asked for). */
  model: string;
  /** All prompt tokens, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Of `cacheWriteTokens`, those written to the 1-hour cache, priced apart. */
  cacheWrite1hTokens: number;
  /** Integer micro-dollars; 0 when `priced` is false. */
  costMicros: number;
  /** The gateway counted the tokens (the stream died before the provider reported usage). */
  estimated: boolean;
  /**
   * False when no price was known for the model. The row is still written so unpriced usage
   * shows up in the ledger instead of passing as free.
   */
  priced: boolean;
  /** Who caused the request: a caller's spend, or the gateway's own (drill, canary, probe). */
  origin: RequestOrigin;
  /** When the request started, epoch milliseconds. */
  createdMs: number;
}
