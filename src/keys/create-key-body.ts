import { z } from 'zod';
import { GatewayError } from '../errors/gateway-error.js';
import { validateBody } from '../dialects/shared/validate-body.js';
import { usdToMicros } from '../metering/money.js';
import { BUDGET_PERIODS, KEY_KINDS, type NewKey } from './virtual-key.js';

const MAX_NAME_LENGTH = 200;
const MAX_ROUTE_GLOBS = 100;
const MAX_GLOB_LENGTH = 200;
/** Far above any real budget, and far below where micro-dollars lose integer precision. */
const MAX_BUDGET_USD = 1_000_000_000;

export const positiveInt = z.int({ error: 'must be a whole number' }).positive({ error: 'must be above 0' });

/** Route globs a key (or a team, bounding its keys) may use. */
export const routeGlobsSchema = z
  .array(z.string().min(1, 'a route glob must not be empty').max(MAX_GLOB_LENGTH))
  .min(1, 'must list at least one route glob; omit it to allow every route')
  .max(MAX_ROUTE_GLOBS);

/** `{usd, period}`, a key's or a team's. */
export const budgetSchema = z
  .object({
    usd: z
      .number()
      .positive()
      .max(MAX_BUDGET_USD)
      .refine((usd) => usdToMicros(usd) >= 1, 'must be at least 0.000001 (one micro-dollar)'),
    period: z.enum(BUDGET_PERIODS),
  })
  .strict();

/** `{rpm?, tpm?}`, a key's or a team's. */
export const limitsSchema = z.object({ rpm: positiveInt.nullish(), tpm: positiveInt.nullish() }).strict();

/** `POST /admin/keys`. `null` is accepted wherever a field may be omitted, meaning the same. */
export const createKeyBodySchema = z
  .object({
    name: z.string().trim().min(1, 'must not be empty').max(MAX_NAME_LENGTH),
    routes: routeGlobsSchema.nullish(),
    direct: z.boolean().nullish(),
    budget: budgetSchema.nullish(),
    limits: limitsSchema.nullish(),
    expires_at: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 time with a zone, e.g. 2030-01-31T00:00:00Z' }).nullish(),
    team: z.string().min(1, "must not be empty; give a team's id or name").max(MAX_NAME_LENGTH).nullish(),
    kind: z.enum(KEY_KINDS).nullish(),
  })
  .strict();

/** A create-key body: the key as asked, and its team as the body names it (an id or a name, for the handler to find). */
export interface CreateKeyRequest {
  key: NewKey;
  team: string | null;
}

/** Validates a create-key body; a 400 naming the first offending field otherwise. */
export function parseCreateKeyBody(body: unknown, nowMs: number): CreateKeyRequest {
  const { name, routes, direct, budget, limits, expires_at: expiresAtText, team, kind } = validateBody(createKeyBodySchema, body);
  const expiresAt = expiresAtText === undefined || expiresAtText === null ? null : futureExpiry(expiresAtText, nowMs);
  return {
    key: {
      name,
      routes: routes ?? null,
      direct: direct ?? true,
      budget: budget ? { usdMicros: usdToMicros(budget.usd), period: budget.period } : null,
      rpm: limits?.rpm ?? null,
      tpm: limits?.tpm ?? null,
      expiresAt,
      teamId: null,
      kind: kind ?? 'service',
      ownerId: null,
    },
    team: team ?? null,
  };
}

/** An `expires_at` (a key's, a token's) as stored (UTC, milliseconds, whatever offset the caller wrote); a 400 unless it is in the future. */
export function futureExpiry(text: string, nowMs: number): string {
  const expiresAtMs = Date.parse(text);
  if (expiresAtMs <= nowMs) {
    throw new GatewayError(`Invalid request: expires_at: must be in the future (got ${text}).`, {
      status: 400,
      code: 'invalid_request_error',
      param: 'expires_at',
    });
  }
  return new Date(expiresAtMs).toISOString();
}
