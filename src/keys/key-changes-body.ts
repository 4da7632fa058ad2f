import { z } from 'zod';
import { GatewayError } from '../errors/gateway-error.js';
import { isRecord } from '../config/is-record.js';
import { validateBody } from '../dialects/shared/validate-body.js';
import { usdToMicros } from '../metering/money.js';
import { createKeyBodySchema, futureExpiry } from './create-key-body.js';
import type { KeyChanges } from './virtual-key.js';

/**
 * `PATCH /admin/keys/:id`: the create body's fields that may change, each optional, checked as on
 * create. null clears `routes` (every route), `budget`, `limits` (or one of them) and `expires_at`;
 * `name` and `direct` take a value.
 */
const keyChangesBodySchema = createKeyBodySchema
  .pick({ routes: true, budget: true, limits: true, expires_at: true })
  .extend({ name: createKeyBodySchema.shape.name.optional(), direct: z.boolean().optional() })
  .strict();

/** Fields a key keeps for life: a key moves to another team or kind by being made anew. */
const FIXED_FIELDS = ['team', 'kind'] as const;

/** Validates a change-key body; a 400 naming the first offending field otherwise. */
export function parseKeyChangesBody(body: unknown, nowMs: number): KeyChanges {
  if (isRecord(body)) {
    const fixed = FIXED_FIELDS.find((field) => Object.hasOwn(body, field));
    if (fixed) throw badField(fixed, `${fixed}: a key's ${fixed} cannot change; create a new key instead.`);
  }
  const { name, routes, direct, budget, limits, expires_at: expiresAt } = validateBody(keyChangesBodySchema, body);
  const changes: KeyChanges = {
    ...(name !== undefined && { name }),
    ...(routes !== undefined && { routes }),
    ...(direct !== undefined && { direct }),
    ...(budget !== undefined && { budget: budget === null ? null : { usdMicros: usdToMicros(budget.usd), period: budget.period } }),
    // `limits: null` clears both; inside it, a limit left out stays as it is.
    ...(limits === null ? { rpm: null, tpm: null } : { ...(limits?.rpm !== undefined && { rpm: limits.rpm }), ...(limits?.tpm !== undefined && { tpm: limits.tpm }) }),
    ...(expiresAt !== undefined && { expiresAt: expiresAt === null ? null : futureExpiry(expiresAt, nowMs) }),
  };
  if (Object.keys(changes).length === 0) {
    throw new GatewayError('Invalid request: the body changes nothing; name a field to change: name, routes, direct, budget, limits or expires_at.', {
      status: 400,
      code: 'invalid_request_error',
    });
  }
  return changes;
}

function badField(param: string, message: string): GatewayError {
  return new GatewayError(`Invalid request: ${message}`, { status: 400, code: 'invalid_request_error', param });
}
