import { periodStart } from '../keys/budget-period.js';
import type { BudgetPeriod, KeyBudget } from '../keys/virtual-key.js';
import { microsToUsd } from '../metering/money.js';
import type { Team } from './team.js';

/** A budget as the admin API shows it, in dollars. */
export interface BudgetView {
  usd: number;
  period: BudgetPeriod;
}

/**
 * A team as the admin API shows it (docs/teams-and-access.md). Every field is always present:
 * `budget` null when it has none, `limits` with nulls, `routes` null when it bounds no route, and
 * the exploration policy in force (the defaults when none was set).
 */
export interface TeamView {
  id: string;
  name: string;
  budget: BudgetView | null;
  limits: { rpm: number | null; tpm: number | null };
  routes: readonly string[] | null;
  exploration: { max_ttl_s: number; limits: { rpm: number | null; tpm: number | null }; budget: BudgetView | null };
  created_at: string;
  updated_at: string;
}

/** `GET /admin/teams/:id/spend`: what the team's keys spent in its current budget period. */
export interface TeamSpendView {
  team_id: string;
  usd: number;
  reserved_usd: number;
  budget_usd: number | null;
  period: BudgetPeriod | null;
  /** Without a budget, spend counts from the team's creation. */
  period_start: string;
}

export function teamView(team: Team): TeamView {
  const { exploration } = team;
  return {
    id: team.id,
    name: team.name,
    budget: budgetView(team.budget),
    limits: { rpm: team.rpm, tpm: team.tpm },
    routes: team.routes,
    exploration: { max_ttl_s: exploration.maxTtlS, limits: { rpm: exploration.rpm, tpm: exploration.tpm }, budget: budgetView(exploration.budget) },
    created_at: team.createdAt,
    updated_at: team.updatedAt,
  };
}

/** The team's current budget period, spend not yet counted. */
export function teamSpendPeriod(team: Team, nowMs: number): Pick<TeamSpendView, 'team_id' | 'budget_usd' | 'period' | 'period_start'> {
  return {
    team_id: team.id,
    budget_usd: team.budget === null ? null : microsToUsd(team.budget.usdMicros),
    period: team.budget?.period ?? null,
    period_start: periodStart(team.budget?.period ?? 'total', team.createdAt, nowMs),
  };
}

function budgetView(budget: KeyBudget | null): BudgetView | null {
  return budget === null ? null : { usd: microsToUsd(budget.usdMicros), period: budget.period };
}
