import { z } from 'zod';
import { GatewayError } from '../errors/gateway-error.js';
import { validateBody } from '../dialects/shared/validate-body.js';
import { usdToMicros } from '../metering/money.js';
import { BUDGET_PERIODS, type NewKey } from './virtual-key.js';

const MAX_NAME_LENGTH = 200;
const MAX_ROUTE_GLOBS = 100;
const MAX_GLOB_LENGTH = 200;
/** Far above any real budget, and far below where micro-dollars lose integer precision. */
const MAX_BUDGET_USD = 1_000_000_000;

const positiveInt = z.int({ error: 'must be a whole number' }).positive({ error: 'must be above 0' });

/** `POST /admin/keys`. `null` is accepted wherever a field may be omitted, meaning the same. */
export const createKeyBodySchema = z
  .object({
    name: z.string().trim().min(1, 'must not be empty').max(MAX_NAME_LENGTH),
    routes: z
      .array(z.string().min(1, 'a route glob must not be empty').max(MAX_GLOB_LENGTH))
      .min(1, 'must list at least one route glob; omit it to allow every route')
      .max(MAX_ROUTE_GLOBS)
      .nullish(),
    direct: z.boolean().nullish(),
    budget: z
      .object({
        usd: z
          .number()
          .positive()
          .max(MAX_BUDGET_USD)
          .refine((usd) => usdToMicros(usd) >= 1, 'must be at least 0.000001 (one micro-dollar)'),
        period: z.enum(BUDGET_PERIODS),
      })
      .strict()
      .nullish(),
    limits: z.object({ rpm: positiveInt.nullish(), tpm: positiveInt.nullish() }).strict().nullish(),
    expires_at: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 time with a zone, e.g. 2030-01-31T00:00:00Z' }).nullish(),
  })
  .strict();

/** Validates a create-key body; a 400 naming the first offending field otherwise. */
export function parseCreateKeyBody(body: unknown, nowMs: number): NewKey {
  const { name, routes, direct, budget, limits, expires_at: expiresAtText } = validateBody(createKeyBodySchema, body);
  const expiresAt = expiresAtText === undefined || expiresAtText === null ? null : futureExpiry(expiresAtText, nowMs);
  return {
    name,
    routes: routes ?? null,
    direct: direct ?? true,
    budget: budget ? { usdMicros: usdToMicros(budget.usd), period: budget.period } : null,
    rpm: limits?.rpm ?? null,
    tpm: limits?.tpm ?? null,
    expiresAt,
    teamId: null,
    kind: 'service',
    ownerId: null,
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
