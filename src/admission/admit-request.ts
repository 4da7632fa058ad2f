import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Principal } from '../keys/authenticate.js';
import { periodStart } from '../keys/budget-period.js';
import { deploymentPrice } from '../metering/deployment-price.js';
import type { ResolvedRoute } from '../routing/resolve-route.js';
import type { KeyBudget } from '../keys/virtual-key.js';
import type { AdmissionGate, AdmissionTicket, GateAdmission, GateBudget, GateRequest } from './admission-gate.js';
import { MIN_FITTED_OUTPUT_TOKENS, outputTokensWithin, reservationRange, type ReservationRange } from './budget-fit.js';
import { budgetRefusal } from './budget-refusal.js';
import type { Consumption } from './consumption.js';
import { DEFAULT_OUTPUT_CAP_TOKENS } from './max-cost.js';

export interface AdmissionDeps {
  admission: AdmissionGate;
}

/** What an admitted request holds until it ends: settled, always, in a `finally`. */
export interface AdmissionHandle {
  ticket?: AdmissionTicket;
  /** Set when the key's budget lowered the output cap: the caller's (null: it set none) and the one sent upstream. */
  maxTokensClamped?: { requested: number | null; sent: number };
}

/** What a request may consume, as far as the gate can tell before any provider is called. */
export interface Demand {
  /** The tokenizer's input estimate; only computed when a limit or budget needs it. */
  inputTokens(): number;
  /** The caller's output cap; `0` for requests that generate nothing (embeddings). */
  maxOutputTokens?: number;
  /** Sends a lower output cap upstream; absent where none can be sent (the request is then never lowered). */
  lowerOutputCap?(tokens: number): void;
}

/**
 * The synchronous gate's limits (docs/keys-and-budgets.md), before any provider is called: the key's requests and
 * tokens per minute (input estimated with the tokenizer), then its budget, reserving the most the
 * request can cost — input estimate plus its output cap (`max_tokens`, else the route's
 * `max_output_tokens`, else 4,096) at the priciest target of the route — so
 * concurrent requests cannot overshoot. When only less is left but enough for the input and 256
 * output tokens, a route with `budget_fit: clamp` (the default) reserves what is left and lowers
 * the output cap to what it pays for. Refusals are 429s: `rate_limit_exceeded` with
 * `retry-after`; `budget_exceeded` with `x-should-retry: false` (waiting does not help).
 *
 * A key of a team passes its team's limits and budget too, counted across the team's keys (SPEC
 * §15), in the same decision: the reservation is what the smaller of the two budgets has room for,
 * and a refusal by the team names it.
 */
export async function admitRequest(
  principal: Principal,
  demand: Demand,
  route: ResolvedRoute,
  options: { config: Config; nowMs: number },
  deps: AdmissionDeps,
): Promise<AdmissionHandle> {
  if (principal.kind !== 'key') return {};
  const { key, team } = principal;
  if (!hasLimits(key) && !(team && hasLimits(team))) return {};
  const estimatedTokens = demand.inputTokens();
  const request: GateRequest = { keyId: key.id, rpm: key.rpm, tpm: key.tpm, estimatedTokens, nowMs: options.nowMs };
  const prices = route.targets.map((target) =>
    deploymentPrice(options.config, route.name, { connection: target.connectionName, model: target.routedModel }),
  );
  const outputCap = demand.maxOutputTokens ?? route.policy.max_output_tokens ?? DEFAULT_OUTPUT_CAP_TOKENS;
  const lowerable = demand.lowerOutputCap !== undefined && outputCap > MIN_FITTED_OUTPUT_TOKENS;
  const clamp = lowerable && route.policy.budget_fit === 'clamp';
  let range: ReservationRange | undefined;
  if (key.budget !== null || team?.budget) {
    range = reservationRange(estimatedTokens, outputCap, prices, clamp);
    if (key.budget !== null) request.budget = gateBudget(key.budget, key.createdAt, range, options.nowMs);
  }
  if (team) {
    request.team = { teamId: team.id, rpm: team.rpm, tpm: team.tpm };
    if (team.budget) request.team.budget = gateBudget(team.budget, team.createdAt, range!, options.nowMs);
  }
  const admission = await deps.admission.admit(request);
  if (!admission.ok) {
    const refusedBy = admission.refusedBy === 'team' ? { limits: team!, team: team!.name } : { limits: key };
    throw refusal(admission, refusedBy, range, lowerable && !clamp);
  }
  const handle: AdmissionHandle = { ticket: admission.ticket };
  if (range && admission.reservedMicros !== undefined && admission.reservedMicros < range.maxCostMicros) {
    const sent = outputTokensWithin(admission.reservedMicros, estimatedTokens, prices);
    demand.lowerOutputCap?.(sent);
    handle.maxTokensClamped = { requested: demand.maxOutputTokens ?? null, sent };
  }
  return handle;
}

/** What a key or a team limits a request by. */
interface Limited {
  budget: KeyBudget | null;
  rpm: number | null;
  tpm: number | null;
}

function hasLimits(limited: Limited): boolean {
  return limited.rpm !== null || limited.tpm !== null || limited.budget !== null;
}

function gateBudget(budget: KeyBudget, createdAt: string, range: ReservationRange, nowMs: number): GateBudget {
  return {
    budgetMicros: budget.usdMicros,
    periodStartMs: Date.parse(periodStart(budget.period, createdAt, nowMs)),
    maxCostMicros: range.maxCostMicros,
    minCostMicros: range.minCostMicros,
  };
}

/** The 429 of a refused request, naming the team when its limit or budget was the one. */
function refusal(
  refused: Exclude<GateAdmission, { ok: true }>,
  { limits, team }: { limits: Limited; team?: string },
  range: ReservationRange | undefined,
  keptWhole: boolean,
): GatewayError {
  if (refused.limit === 'budget') {
    // Only a request with a budget (and so a range) can be refused by one.
    return budgetRefusal({
      period: limits.budget!.period,
      budgetMicros: limits.budget!.usdMicros,
      availableMicros: refused.availableMicros,
      minCostMicros: range!.minCostMicros,
      minOutputTokens: range!.minOutputTokens,
      keptWhole,
      ...(team === undefined ? {} : { team }),
    });
  }
  const limit = refused.limit === 'rpm' ? `${limits.rpm} requests` : `${limits.tpm} tokens`;
  const message = team === undefined ? `Rate limit reached for this key: ${limit} per minute.` : `Rate limit reached for team "${team}": ${limit} per minute across its keys.`;
  return new GatewayError(message, { status: 429, code: 'rate_limit_exceeded', type: refused.limit === 'rpm' ? 'requests' : 'tokens', retryAfterMs: refused.retryAfterMs });
}

/** Charges what the request really used (billed failures included) and releases its reservation; never waits. */
export function settleAdmission(handle: AdmissionHandle, consumption: Consumption, nowMs: number): void {
  handle.ticket?.settle(consumption, nowMs);
  handle.ticket = undefined;
}
