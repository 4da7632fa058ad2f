import type { Kysely, Selectable } from 'kysely';
import { BUDGET_PERIODS, type BudgetPeriod } from '../keys/virtual-key.js';
import type { DatabaseSchema, TeamsTable } from '../store/schema.js';
import { DEFAULT_EXPLORATION_TTL_S, type ExplorationPolicy, type Team } from './team.js';

type TeamRow = Selectable<TeamsTable>;

/** Teams in the store. */
export class TeamStore {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  /** The team with this id, or else this name (tokens and `admin.oidc.roles` accept either). */
  async find(idOrName: string): Promise<Team | undefined> {
    const byId = await this.#db.selectFrom('teams').selectAll().where('id', '=', idOrName).executeTakeFirst();
    const row = byId ?? (await this.#db.selectFrom('teams').selectAll().where('name', '=', idOrName).executeTakeFirst());
    return row && toTeam(row);
  }

  /** Oldest first. */
  async list(): Promise<Team[]> {
    const rows = await this.#db.selectFrom('teams').selectAll().orderBy('created_at').orderBy('id').execute();
    return rows.map(toTeam);
  }
}

export function toTeam(row: TeamRow): Team {
  return {
    id: row.id,
    name: row.name,
    budget:
      row.budget_usd_micros === null || row.budget_period === null
        ? null
        : { usdMicros: Number(row.budget_usd_micros), period: parsePeriod(row.id, row.budget_period) },
    rpm: row.rpm,
    tpm: row.tpm,
    routes: row.routes_json === null ? null : (JSON.parse(row.routes_json) as string[]),
    exploration: explorationOf(row.exploration_json),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The stored policy (the API's shape), or the defaults: seven days, no limits or budget of its own. */
function explorationOf(json: string | null): ExplorationPolicy {
  const stored = json === null ? {} : (JSON.parse(json) as { max_ttl_s?: number; limits?: { rpm?: number | null; tpm?: number | null }; budget?: { usd_micros: number; period: BudgetPeriod } | null });
  return {
    maxTtlS: stored.max_ttl_s ?? DEFAULT_EXPLORATION_TTL_S,
    rpm: stored.limits?.rpm ?? null,
    tpm: stored.limits?.tpm ?? null,
    budget: stored.budget ? { usdMicros: stored.budget.usd_micros, period: stored.budget.period } : null,
  };
}

function parsePeriod(id: string, period: string): BudgetPeriod {
  const known = BUDGET_PERIODS.find((candidate) => candidate === period);
  if (known) return known;
  throw new Error(`team ${id}: unknown budget_period "${period}"`);
}
