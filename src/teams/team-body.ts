import { z } from 'zod';
import { validateBody } from '../dialects/shared/validate-body.js';
import { budgetSchema, limitsSchema, positiveInt, routeGlobsSchema } from '../keys/create-key-body.js';
import type { KeyBudget } from '../keys/virtual-key.js';
import { usdToMicros } from '../metering/money.js';
import { DEFAULT_EXPLORATION_TTL_S, type ExplorationPolicy } from './team.js';

const MAX_TEAM_NAME_LENGTH = 100;
/** A year: an exploration key is for exploring, not a service key by another name. */
const MAX_EXPLORATION_TTL_S = 365 * 24 * 60 * 60;

/**
 * A team is named by its name in URLs, tokens and `admin.oidc.roles`, so names are plain words; one
 * starting `team_` would read as an id, which a team is found by first.
 */
const teamNameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_TEAM_NAME_LENGTH)
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, 'must start with a letter or digit and hold only letters, digits, spaces, ".", "_" and "-"')
  .refine((name) => !name.startsWith('team_'), 'must not start with "team_", which team ids do');

const explorationSchema = z
  .object({
    max_ttl_s: positiveInt.max(MAX_EXPLORATION_TTL_S, { error: `must be at most ${MAX_EXPLORATION_TTL_S} (a year)` }).nullish(),
    limits: limitsSchema.nullish(),
    budget: budgetSchema.nullish(),
  })
  .strict();

const teamFields = {
  budget: budgetSchema.nullish(),
  limits: limitsSchema.nullish(),
  routes: routeGlobsSchema.nullish(),
  exploration: explorationSchema.nullish(),
};

/** `POST /admin/teams`. `null` is accepted wherever a field may be omitted, meaning the same. */
const createTeamBodySchema = z.object({ name: teamNameSchema, ...teamFields }).strict();

/** `PATCH /admin/teams/:id`: any of the fields (see `TeamPatch`). */
const patchTeamBodySchema = z.object({ name: teamNameSchema.optional(), ...teamFields }).strict();

/** What a team is made with, or changed to: the store's fields (money in micro-dollars). */
export interface TeamFields {
  name: string;
  budget: KeyBudget | null;
  rpm: number | null;
  tpm: number | null;
  routes: readonly string[] | null;
  exploration: ExplorationPolicy;
}

const DEFAULT_POLICY: ExplorationPolicy = { maxTtlS: DEFAULT_EXPLORATION_TTL_S, rpm: null, tpm: null, budget: null };

/** A team made with a name alone: no budget, limits or route bounds, the default exploration policy. */
const NO_FIELDS: Omit<TeamFields, 'name'> = { budget: null, rpm: null, tpm: null, routes: null, exploration: DEFAULT_POLICY };

/**
 * A change as JSON Merge Patch (RFC 7386) reads a body: only the fields it names, objects
 * (`limits`, `exploration`) merged field by field, null clearing (an exploration policy back to
 * the defaults). A budget is one value: `usd` and `period` together.
 */
export interface TeamPatch {
  name?: string;
  budget?: KeyBudget | null;
  rpm?: number | null;
  tpm?: number | null;
  routes?: readonly string[] | null;
  exploration?: Partial<ExplorationPolicy> | null;
}

type BodyFields = z.output<typeof patchTeamBodySchema>;

/** Validates a create-team body; a 400 naming the first offending field otherwise. */
export function parseCreateTeamBody(body: unknown): TeamFields {
  const parsed = validateBody(createTeamBodySchema, body);
  return applyTeamPatch({ ...NO_FIELDS, name: parsed.name }, patchOf(parsed));
}

/** Validates a PATCH body; a 400 naming the first offending field otherwise. */
export function parseTeamPatch(body: unknown): TeamPatch {
  return patchOf(validateBody(patchTeamBodySchema, body));
}

/** The team's fields once the patch is applied. */
export function applyTeamPatch(team: TeamFields, patch: TeamPatch): TeamFields {
  const { exploration, ...own } = patch;
  return {
    ...team,
    ...own,
    exploration: exploration === undefined ? team.exploration : exploration === null ? DEFAULT_POLICY : { ...team.exploration, ...exploration },
  };
}

/** The body's fields in the store's terms; a field the body left out stays out. */
function patchOf(body: BodyFields): TeamPatch {
  const patch: TeamPatch = { ...limitsOf(body.limits) };
  if (body.name !== undefined) patch.name = body.name;
  if (body.budget !== undefined) patch.budget = budgetOf(body.budget);
  if (body.routes !== undefined) patch.routes = body.routes;
  if (body.exploration === null) patch.exploration = null;
  if (body.exploration) {
    const { max_ttl_s: maxTtlS, limits, budget } = body.exploration;
    patch.exploration = { ...limitsOf(limits) };
    if (maxTtlS !== undefined) patch.exploration.maxTtlS = maxTtlS ?? DEFAULT_EXPLORATION_TTL_S;
    if (budget !== undefined) patch.exploration.budget = budgetOf(budget);
  }
  return patch;
}

function limitsOf(limits: BodyFields['limits']): Pick<TeamPatch, 'rpm' | 'tpm'> {
  if (limits === undefined) return {};
  if (limits === null) return { rpm: null, tpm: null };
  const patch: Pick<TeamPatch, 'rpm' | 'tpm'> = {};
  if (limits.rpm !== undefined) patch.rpm = limits.rpm;
  if (limits.tpm !== undefined) patch.tpm = limits.tpm;
  return patch;
}

function budgetOf(budget: { usd: number; period: KeyBudget['period'] } | null): KeyBudget | null {
  return budget === null ? null : { usdMicros: usdToMicros(budget.usd), period: budget.period };
}
