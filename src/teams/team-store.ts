import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { AuditContext, AuditTrail } from '../audit/audit-trail.js';
import { BUDGET_PERIODS, type BudgetPeriod } from '../keys/virtual-key.js';
import type { DatabaseSchema, TeamsTable } from '../store/schema.js';
import { applyTeamPatch, type TeamFields, type TeamPatch } from './team-body.js';
import { DEFAULT_EXPLORATION_TTL_S, type ExplorationPolicy, type Team } from './team.js';
import { teamView } from './team-view.js';

type TeamRow = Selectable<TeamsTable>;

export interface TeamStoreOptions {
  /** Where changes made with an `AuditContext` are recorded, in the change's own transaction. */
  audit?: AuditTrail;
  nowMs?: () => number;
}

/** Why a team was not deleted: unknown, or it still has keys that work. */
export type TeamDeletion = { deleted: true; team: Team } | { deleted: false; team: Team | undefined; activeKeys: number };

/** Teams in the store. */
export class TeamStore {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #audit: AuditTrail | undefined;
  readonly #nowMs: () => number;

  constructor(db: Kysely<DatabaseSchema>, options: TeamStoreOptions = {}) {
    this.#db = db;
    this.#audit = options.audit;
    this.#nowMs = options.nowMs ?? Date.now;
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

  /** With a context, the `team.create` row is written in the same transaction. Names are unique: the caller checks first, the store's constraint holds. */
  async create(fields: TeamFields, context?: AuditContext): Promise<Team> {
    const now = new Date(this.#nowMs()).toISOString();
    const row: TeamRow = { id: newTeamId(), ...columnsOf(fields), created_at: now, updated_at: now };
    const team = toTeam(row);
    const insert = this.#db.insertInto('teams').values(row);
    if (this.#audit && context) await this.#audit.change(context, { action: 'team.create', target: { kind: 'team', id: team.id }, after: teamView(team) }, [insert]);
    else await insert.execute();
    return team;
  }

  /** Applies the patch; undefined when the team is unknown. Audited as `team.update` (before and after). */
  async update(id: string, patch: TeamPatch, context?: AuditContext): Promise<Team | undefined> {
    const before = await this.find(id);
    if (!before) return undefined;
    const { id: _id, createdAt: _created, updatedAt: _updated, ...current } = before;
    const fields = applyTeamPatch(current, patch);
    const updatedAt = new Date(this.#nowMs()).toISOString();
    const update = this.#db.updateTable('teams').set({ ...columnsOf(fields), updated_at: updatedAt }).where('id', '=', before.id);
    const after: Team = { ...before, ...fields, updatedAt };
    if (this.#audit && context) {
      await this.#audit.change(context, { action: 'team.update', target: { kind: 'team', id: before.id }, before: teamView(before), after: teamView(after) }, [update]);
    } else {
      await update.execute();
    }
    return after;
  }

  /**
   * Deletes a team that has no active key (neither revoked nor expired): the check and the delete
   * are one statement, so a key made meanwhile is never left in a team that is gone. Audited as
   * `team.delete` (before).
   */
  async delete(id: string, context?: AuditContext): Promise<TeamDeletion> {
    const team = await this.find(id);
    if (!team) return { deleted: false, team: undefined, activeKeys: 0 };
    const nowIso = new Date(this.#nowMs()).toISOString();
    const remove = this.#db
      .deleteFrom('teams')
      .where('id', '=', team.id)
      .where((eb) => eb.not(eb.exists(activeKeysOf(this.#db, team.id, nowIso).select('id'))));
    const deleted =
      this.#audit && context
        ? ((await this.#audit.change(context, { action: 'team.delete', target: { kind: 'team', id: team.id }, before: teamView(team) }, [remove], { onlyIfChanged: true }))
            .changedRows[0] ?? 0) > 0
        : (await remove.executeTakeFirst()).numDeletedRows > 0n;
    if (deleted) return { deleted: true, team };
    return { deleted: false, team: await this.find(team.id), activeKeys: await this.activeKeyCount(team.id) };
  }

  /** The team's keys that still work: not revoked, not expired. */
  async activeKeyCount(teamId: string): Promise<number> {
    const nowIso = new Date(this.#nowMs()).toISOString();
    const row = await activeKeysOf(this.#db, teamId, nowIso)
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('count'))
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }
}

/** Keys stored with `expires_at` as `toISOString()` text, so a text comparison is a time comparison. */
function activeKeysOf(db: Kysely<DatabaseSchema>, teamId: string, nowIso: string) {
  return db
    .selectFrom('virtual_keys')
    .where('team_id', '=', teamId)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', nowIso)]));
}

/** `team_` + 64 random bits in hex: the gate and the ledger tell a team's id from a key's by the prefix. */
function newTeamId(): string {
  return `team_${randomBytes(8).toString('hex')}`;
}

function columnsOf(fields: TeamFields): Omit<TeamRow, 'id' | 'created_at' | 'updated_at'> {
  const { exploration } = fields;
  const limits = exploration.rpm === null && exploration.tpm === null ? undefined : { rpm: exploration.rpm, tpm: exploration.tpm };
  const budget = exploration.budget === null ? undefined : { usd_micros: exploration.budget.usdMicros, period: exploration.budget.period };
  return {
    name: fields.name,
    budget_usd_micros: fields.budget?.usdMicros ?? null,
    budget_period: fields.budget?.period ?? null,
    rpm: fields.rpm,
    tpm: fields.tpm,
    routes_json: fields.routes === null ? null : JSON.stringify(fields.routes),
    exploration_json: JSON.stringify({ max_ttl_s: exploration.maxTtlS, ...(limits ? { limits } : {}), ...(budget ? { budget } : {}) }),
  };
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
