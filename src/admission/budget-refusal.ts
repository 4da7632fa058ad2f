import { GatewayError } from '../errors/gateway-error.js';
import type { BudgetPeriod } from '../keys/virtual-key.js';
import { microsToUsd } from '../metering/money.js';

const PERIOD_WORDS: Record<BudgetPeriod, string> = { day: 'daily', month: 'monthly', total: 'total' };

export interface BudgetShortfall {
  period: BudgetPeriod;
  budgetMicros: number;
  /** What is left once spend and in-flight reservations are counted. */
  availableMicros: number;
  /** The least the request could have been reserved at, and the output that pays for. */
  minCostMicros: number;
  minOutputTokens: number;
  /** The route keeps requests whole (`budget_fit: refuse`) although this one could have been lowered. */
  keptWhole: boolean;
  /** The name of the team whose budget it is; absent: the key's own. */
  team?: string;
}

/**
 * The 429 `budget_exceeded` of a request its key's budget, or its team's, cannot take, saying whose
 * and which case it is: nothing is left (waiting for the next period is the only cure), or
 * something is but not enough for this request (a smaller one would pass). `x-should-retry: false`
 * either way: the same request sent again gets the same answer.
 */
export function budgetRefusal(shortfall: BudgetShortfall): GatewayError {
  const { team } = shortfall;
  const period = `${PERIOD_WORDS[shortfall.period]} budget (${usd(shortfall.budgetMicros)})`;
  const budget = team === undefined ? `this key's ${period}` : `the ${period} of team "${team}"`;
  const output = shortfall.minOutputTokens > 0 ? ` and ${shortfall.minOutputTokens} output tokens` : '';
  const whole = shortfall.keptWhole ? '; the route has budget_fit: refuse' : '';
  const message =
    shortfall.availableMicros <= 0
      ? team === undefined
        ? `The budget is spent: nothing is left of ${budget} once requests in flight are counted.`
        : `The budget of team "${team}" is spent: nothing is left of its ${period} once requests in flight are counted.`
      : `This request is too large for what is left of ${budget}: ${usd(shortfall.availableMicros)} left, ` +
        `and the request needs at least ${usd(shortfall.minCostMicros)} (its input${output} at the route's dearest price${whole}).`;
  return new GatewayError(message, { status: 429, code: 'budget_exceeded', type: 'insufficient_quota' });
}

/** Dollars to the micro-dollar, without trailing zeros past the cents. */
function usd(micros: number): string {
  return `$${microsToUsd(micros).toFixed(6).replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}
