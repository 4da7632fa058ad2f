import { z } from 'zod';
import { ROLES, type Role } from '../core/actor.js';
import { validateBody } from '../dialects/shared/validate-body.js';
import { GatewayError } from '../errors/gateway-error.js';
import { createKeyBodySchema, futureExpiry } from '../keys/create-key-body.js';

const createTokenBodySchema = z
  .object({
    name: createKeyBodySchema.shape.name,
    role: z.enum(ROLES),
    team: z.string().min(1, 'must name a team by its id or name').max(200).nullish(),
    expires_at: createKeyBodySchema.shape.expires_at,
  })
  .strict();

/** A create-token body as asked: the team still as the caller named it (an id or a name). */
export interface CreateTokenRequest {
  name: string;
  role: Role;
  team: string | null;
  expiresAt: string | null;
}

/**
 * Validates `POST /admin/tokens`: a team role needs its `team`, a role across every team takes
 * none; a 400 naming the offending field otherwise.
 */
export function parseCreateTokenBody(body: unknown, nowMs: number): CreateTokenRequest {
  const { name, role, team, expires_at: expiresAt } = validateBody(createTokenBodySchema, body);
  const teamRole = role === 'team_admin' || role === 'member';
  if (teamRole && (team === undefined || team === null)) throw badTeam(`a ${role} token acts for one team: name it (its id or name).`);
  if (!teamRole && team !== undefined && team !== null) throw badTeam(`an ${role} token acts across every team and takes no team.`);
  return { name, role, team: team ?? null, expiresAt: expiresAt === undefined || expiresAt === null ? null : futureExpiry(expiresAt, nowMs) };
}

export function badTeam(message: string): GatewayError {
  return new GatewayError(`Invalid request: team: ${message}`, { status: 400, code: 'invalid_request_error', param: 'team' });
}
