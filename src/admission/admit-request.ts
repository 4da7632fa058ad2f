import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Principal } from '../keys/authenticate.js';
import { periodStart } from '../keys/budget-period.js';
import { deploymentPrice } from '../metering/deployment-price.js';
import type { ResolvedRoute } from '../routing/resolve-route.js';
import type { BudgetGate, BudgetReservation } from './budget-gate.js';
import { NOTHING_CONSUMED, type Consumption } from './consumption.js';
import { DEFAULT_OUTPUT_CAP_TOKENS, maxCostMicros } from './max-cost.js';
import type { RateLimiter, RateTicket } from './rate-limiter.js';

export interface AdmissionDeps {
  rateLimiter: RateLimiter;
  budgetGate: BudgetGate;
  /** The ledger's sum for a key since a time (read once per key and period). */
  ledgerSpentMicros(keyId: string, sinceMs: number): Promise<number>;
}

const PERIOD_WORDS = { day: 'daily', month: 'monthly', total: 'total' } as const;

/** What an admitted request holds until it ends: settled, always, in a `finally`. */
export interface AdmissionHandle {
  rateTicket?: RateTicket;
  reservation?: BudgetReservation;
}

/** What a request may consume, as far as the gate can tell before any provider is called. */
export interface Demand {
  /** The tokenizer's input estimate; only computed when a limit or budget needs it. */
  inputTokens(): number;
  /** The caller's output cap; `0` for requests that generate nothing (embeddings). */
  maxOutputTokens?: number;
}

/**
 * The synchronous gate's limits (docs/keys-and-budgets.md), before any provider is called: the key's requests and
 * tokens per minute (input estimated with the tokenizer), then its budget, reserving the most the
 * request can cost — input estimate plus its output cap (`max_tokens`, else the route's
 * `max_output_tokens`, else 4,096) at the priciest target of the route — so
 * concurrent requests cannot overshoot. Refusals are 429s: `rate_limit_exceeded` with
 * `retry-after`; `budget_exceeded` with `x-should-retry: false` (waiting does not help).
 */
export async function admitRequest(
  principal: Principal,
  demand: Demand,
  route: ResolvedRoute,
  options: { config: Config; nowMs: number },
  deps: AdmissionDeps,
): Promise<AdmissionHandle> {
  if (principal.kind !== 'key') return {};
  const { key } = principal;
  const handle: AdmissionHandle = {};
  const estimatedTokens = key.rpm !== null || key.tpm !== null || key.budget !== null ? demand.inputTokens() : 0;
  if (key.rpm !== null || key.tpm !== null) {
    const admission = deps.rateLimiter.admit({ keyId: key.id, rpm: key.rpm, tpm: key.tpm, estimatedTokens, nowMs: options.nowMs });
    if (!admission.ok) {
      throw new GatewayError(
        `Rate limit reached for this key: ${admission.limit === 'rpm' ? `${key.rpm} requests` : `${key.tpm} tokens`} per minute.`,
        { status: 429, code: 'rate_limit_exceeded', type: admission.limit === 'rpm' ? 'requests' : 'tokens', retryAfterMs: admission.retryAfterMs },
      );
    }
    handle.rateTicket = admission.ticket;
  }
  if (key.budget !== null) {
    const periodStartMs = Date.parse(periodStart(key.budget.period, key.createdAt, options.nowMs));
    const spentMicros = deps.budgetGate.spentMicros(key.id, periodStartMs) ?? (await deps.ledgerSpentMicros(key.id, periodStartMs));
    const prices = route.targets.map((target) =>
      deploymentPrice(options.config, route.name, { connection: target.connectionName, model: target.routedModel }),
    );
    const outputCap = demand.maxOutputTokens ?? route.policy.max_output_tokens ?? DEFAULT_OUTPUT_CAP_TOKENS;
    const maxCost = maxCostMicros(estimatedTokens, outputCap, prices);
    const admission = deps.budgetGate.reserve({ keyId: key.id, budgetMicros: key.budget.usdMicros, periodStartMs, spentMicros, maxCostMicros: maxCost });
    if (!admission.ok) {
      settleAdmission(handle, NOTHING_CONSUMED, options.nowMs, deps);
      throw new GatewayError(`This key's ${PERIOD_WORDS[key.budget.period]} budget is spent, or this request could exceed it.`, {
        status: 429,
        code: 'budget_exceeded',
        type: 'insufficient_quota',
      });
    }
    handle.reservation = admission.reservation;
  }
  return handle;
}

/** Charges what the request really used (billed failures included) and releases its reservation. */
export function settleAdmission(
  handle: AdmissionHandle,
  consumption: Consumption,
  nowMs: number,
  deps: Pick<AdmissionDeps, 'rateLimiter' | 'budgetGate'>,
): void {
  if (handle.rateTicket) deps.rateLimiter.settle(handle.rateTicket, consumption.tokens, nowMs);
  if (handle.reservation) deps.budgetGate.settle(handle.reservation, consumption.costMicros);
  handle.rateTicket = undefined;
  handle.reservation = undefined;
}
