import { describe, expect, it } from 'vitest';
import { budgetRefusal, type BudgetShortfall } from './budget-refusal.js';

const shortfall: BudgetShortfall = {
  period: 'month',
  budgetMicros: 50_000_000,
  availableMicros: 1_230,
  minCostMicros: 63_840,
  minOutputTokens: 256,
  keptWhole: false,
};

describe('budgetRefusal', () => {
  it('says the budget is spent when nothing is left', () => {
    const error = budgetRefusal({ ...shortfall, availableMicros: 0 });
    expect(error).toMatchObject({ status: 429, code: 'budget_exceeded', type: 'insufficient_quota' });
    expect(error.message).toBe("The budget is spent: nothing is left of this key's monthly budget ($50.00) once requests in flight are counted.");
  });

  it('says the request is too large for what is left, naming both amounts', () => {
    expect(budgetRefusal(shortfall).message).toBe(
      "This request is too large for what is left of this key's monthly budget ($50.00): $0.00123 left, " +
        "and the request needs at least $0.06384 (its input and 256 output tokens at the route's dearest price).",
    );
  });

  it('names budget_fit: refuse when the route kept a request whole that could have been lowered', () => {
    expect(budgetRefusal({ ...shortfall, period: 'day', keptWhole: true, minOutputTokens: 64_000 }).message).toMatch(
      /daily budget .* \(its input and 64000 output tokens at the route's dearest price; the route has budget_fit: refuse\)\.$/,
    );
  });

  it("names the team when the team's budget refused the request", () => {
    expect(budgetRefusal({ ...shortfall, team: 'search', availableMicros: 0 }).message).toBe(
      'The budget of team "search" is spent: nothing is left of its monthly budget ($50.00) once requests in flight are counted.',
    );
    expect(budgetRefusal({ ...shortfall, team: 'search' }).message).toMatch(/^This request is too large for what is left of the monthly budget \(\$50\.00\) of team "search": \$0\.00123 left/);
  });

  it('leaves output out for a request that generates none', () => {
    expect(budgetRefusal({ ...shortfall, period: 'total', minOutputTokens: 0 }).message).toMatch(/total budget .*\(its input at the route's dearest price\)\.$/);
  });
});
