import type { Usage } from '../core/usage.js';
import { lookupModel } from './model-catalog.js';

/**
 * What one model costs, in USD per million tokens. Numerically that is also micro-dollars per
 * token, which is why the arithmetic below can work in micro-dollars directly.
 */
export interface Price {
  inputPerMtok: number;
  outputPerMtok: number;
  /** Without it, cached input tokens cost the full input price. */
  cacheReadPerMtok?: number;
  /**
   * Without it, tokens written to the cache cost the full input price. It is the 5-minute write
   * price; a 1-hour write costs `ONE_HOUR_WRITE_FACTOR` times it.
   */
  cacheWritePerMtok?: number;
}

/**
 * What a 1-hour cache write costs next to a 5-minute one: Anthropic and Claude on Bedrock bill
 * 2× the input price for the one and 1.25× for the other. Only they report 1-hour writes.
 */
const ONE_HOUR_WRITE_FACTOR = 2 / 1.25;

/** The part of a target's config that decides its price (`TargetConfig` fits). */
export interface PricedTarget {
  model: string;
  price?: { input_per_mtok: number; output_per_mtok: number; cache_read_per_mtok?: number | undefined; cache_write_per_mtok?: number | undefined };
}

/**
 * A target's price: its own `price` when set, else the shipped catalog's entry for its model
 * times `homeFactor` (what the model costs at the target's home next to the list price,
 * `homePriceFactor`), else undefined (unknown model). An override replaces the whole price: the
 * catalog's cache rates belong to the list price, so with an override cached tokens cost the
 * override's own cache rates, or its input price where it names none.
 */
export function priceFor(target: PricedTarget, homeFactor = 1): Price | undefined {
  if (target.price) {
    const { input_per_mtok, output_per_mtok, cache_read_per_mtok, cache_write_per_mtok } = target.price;
    const price: Price = { inputPerMtok: input_per_mtok, outputPerMtok: output_per_mtok };
    if (cache_read_per_mtok !== undefined) price.cacheReadPerMtok = cache_read_per_mtok;
    if (cache_write_per_mtok !== undefined) price.cacheWritePerMtok = cache_write_per_mtok;
    return price;
  }
  const facts = lookupModel(target.model);
  if (!facts) return undefined;
  const atHome = (perMtok: number) => (homeFactor === 1 ? perMtok : roundedPerMtok(perMtok * homeFactor));
  const price: Price = { inputPerMtok: atHome(facts.inputPerMtok), outputPerMtok: atHome(facts.outputPerMtok) };
  if (facts.cacheReadPerMtok !== undefined) price.cacheReadPerMtok = atHome(facts.cacheReadPerMtok);
  if (facts.cacheWritePerMtok !== undefined) price.cacheWritePerMtok = atHome(facts.cacheWritePerMtok);
  return price;
}

/** To six decimals of a dollar per million tokens, what `costMicros` counts exactly: 3 × 1.1 is 3.3, not 3.3000000000000003. */
function roundedPerMtok(perMtok: number): number {
  return Math.round(perMtok * 1_000_000) / 1_000_000;
}

/**
 * Prices become integers in millionths of a micro-dollar per token, exact for any price given
 * to six decimals of a dollar per million tokens (list prices have at most three).
 */
const PRICE_SCALE = 1_000_000n;

/**
 * What `usage` cost at `price`, in whole micro-dollars. Each token class is counted at its own
 * rate in scaled integers (BigInt, so no size can lose precision) and the total is rounded once,
 * half up: summing per-class roundings or float products would drift by a micro-dollar here and
 * there, and those add up across a ledger.
 *
 * `inputTokens` includes cached tokens, so the ones billed at a cache rate are taken out of the
 * full-rate count; tokens whose class has no rate stay at the input price. Of the cache writes,
 * the 1-hour ones cost `ONE_HOUR_WRITE_FACTOR` times the write rate. Counts that are not
 * whole non-negative numbers (a provider bug, an estimate) are rounded and floored at zero
 * rather than thrown on: the ledger must not fail on a bad count.
 */
export function costMicros(usage: Usage, price: Price): number {
  const inputTokens = wholeTokens(usage.inputTokens);
  const cacheReadTokens = price.cacheReadPerMtok === undefined ? 0n : wholeTokens(usage.cacheReadTokens);
  const cacheWriteTokens = price.cacheWritePerMtok === undefined ? 0n : wholeTokens(usage.cacheWriteTokens);
  const hourWriteTokens = bigMin(cacheWriteTokens, wholeTokens(usage.cacheWrite1hTokens));
  const fullRateTokens = bigMax(0n, inputTokens - cacheReadTokens - cacheWriteTokens);
  const hourWritePerMtok = price.cacheWritePerMtok === undefined ? undefined : price.cacheWritePerMtok * ONE_HOUR_WRITE_FACTOR;
  const scaled =
    fullRateTokens * scaledPrice(price.inputPerMtok) +
    cacheReadTokens * scaledPrice(price.cacheReadPerMtok) +
    (cacheWriteTokens - hourWriteTokens) * scaledPrice(price.cacheWritePerMtok) +
    hourWriteTokens * scaledPrice(hourWritePerMtok) +
    wholeTokens(usage.outputTokens) * scaledPrice(price.outputPerMtok);
  return Number((scaled + PRICE_SCALE / 2n) / PRICE_SCALE);
}

function wholeTokens(count: number | undefined): bigint {
  if (count === undefined || !Number.isFinite(count) || count <= 0) return 0n;
  return BigInt(Math.round(count));
}

function scaledPrice(perMtok: number | undefined): bigint {
  if (perMtok === undefined || !Number.isFinite(perMtok) || perMtok <= 0) return 0n;
  return BigInt(Math.round(perMtok * Number(PRICE_SCALE)));
}

function bigMax(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

function bigMin(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
