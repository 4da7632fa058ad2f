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

/** `PATCH /admin/teams/:id`: any of the fields; null clears one (the exploration policy back to the defaults). */
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

/** A team made with a name alone: no budget, limits or route bounds, the default exploration policy. */
const NO_FIELDS: Omit<TeamFields, 'name'> = {
  budget: null,
  rpm: null,
  tpm: null,
  routes: null,
  exploration: { maxTtlS: DEFAULT_EXPLORATION_TTL_S, rpm: null, tpm: null, budget: null },
};

/** A PATCH: only the fields the body named. */
export type TeamPatch = Partial<TeamFields>;

type BodyFields = z.output<typeof patchTeamBodySchema>;

/** Validates a create-team body; a 400 naming the first offending field otherwise. */
export function parseCreateTeamBody(body: unknown): TeamFields {
  const parsed = validateBody(createTeamBodySchema, body);
  return { ...NO_FIELDS, ...fieldsOf(parsed), name: parsed.name };
}

/** Validates a PATCH body: the fields it names, each replacing the team's whole field. */
export function parseTeamPatch(body: unknown): TeamPatch {
  const parsed = validateBody(patchTeamBodySchema, body);
  const patch: TeamPatch = { ...fieldsOf(parsed) };
  if (parsed.name !== undefined) patch.name = parsed.name;
  return patch;
}

/** The body's fields in the store's terms; a field the body left out stays out. */
function fieldsOf(body: BodyFields): Omit<TeamPatch, 'name'> {
  const fields: Omit<TeamPatch, 'name'> = {};
  if (body.budget !== undefined) fields.budget = body.budget === null ? null : { usdMicros: usdToMicros(body.budget.usd), period: body.budget.period };
  if (body.limits !== undefined) {
    fields.rpm = body.limits?.rpm ?? null;
    fields.tpm = body.limits?.tpm ?? null;
  }
  if (body.routes !== undefined) fields.routes = body.routes;
  if (body.exploration !== undefined) {
    const policy = body.exploration;
    fields.exploration = {
      maxTtlS: policy?.max_ttl_s ?? DEFAULT_EXPLORATION_TTL_S,
      rpm: policy?.limits?.rpm ?? null,
      tpm: policy?.limits?.tpm ?? null,
      budget: policy?.budget ? { usdMicros: usdToMicros(policy.budget.usd), period: policy.budget.period } : null,
    };
  }
  return fields;
}
