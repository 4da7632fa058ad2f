import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Principal } from '../keys/authenticate.js';
import { periodStart } from '../keys/budget-period.js';
import { deploymentPrice } from '../metering/deployment-price.js';
import type { ResolvedRoute } from '../routing/resolve-route.js';
import type { AdmissionGate, AdmissionTicket, GateRequest } from './admission-gate.js';
import type { Consumption } from './consumption.js';
import { DEFAULT_OUTPUT_CAP_TOKENS, maxCostMicros } from './max-cost.js';

export interface AdmissionDeps {
  admission: AdmissionGate;
}

const PERIOD_WORDS = { day: 'daily', month: 'monthly', total: 'total' } as const;

/** What an admitted request holds until it ends: settled, always, in a `finally`. */
export interface AdmissionHandle {
  ticket?: AdmissionTicket;
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
  const { budget } = key;
  if (key.rpm === null && key.tpm === null && budget === null) return {};
  const estimatedTokens = demand.inputTokens();
  const request: GateRequest = { keyId: key.id, rpm: key.rpm, tpm: key.tpm, estimatedTokens, nowMs: options.nowMs };
  if (budget !== null) {
    const prices = route.targets.map((target) =>
      deploymentPrice(options.config, route.name, { connection: target.connectionName, model: target.routedModel }),
    );
    const outputCap = demand.maxOutputTokens ?? route.policy.max_output_tokens ?? DEFAULT_OUTPUT_CAP_TOKENS;
    request.budget = {
      budgetMicros: budget.usdMicros,
      periodStartMs: Date.parse(periodStart(budget.period, key.createdAt, options.nowMs)),
      maxCostMicros: maxCostMicros(estimatedTokens, outputCap, prices),
    };
  }
  const admission = await deps.admission.admit(request);
  if (admission.ok) return { ticket: admission.ticket };
  if (admission.limit === 'budget') {
    throw new GatewayError(`This key's ${PERIOD_WORDS[budget?.period ?? 'total']} budget is spent, or this request could exceed it.`, {
      status: 429,
      code: 'budget_exceeded',
      type: 'insufficient_quota',
    });
  }
  throw new GatewayError(
    `Rate limit reached for this key: ${admission.limit === 'rpm' ? `${key.rpm} requests` : `${key.tpm} tokens`} per minute.`,
    { status: 429, code: 'rate_limit_exceeded', type: admission.limit === 'rpm' ? 'requests' : 'tokens', retryAfterMs: admission.retryAfterMs },
  );
}

/** Charges what the request really used (billed failures included) and releases its reservation; never waits. */
export function settleAdmission(handle: AdmissionHandle, consumption: Consumption, nowMs: number): void {
  handle.ticket?.settle(consumption, nowMs);
  handle.ticket = undefined;
}
