import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';
import type { KeyCache } from './key-cache.js';
import { routeAllowed } from './route-globs.js';
import type { KeyTeam, VirtualKey } from './virtual-key.js';

/** Who is calling: a virtual key (with its team, when it has one), or nobody in particular under `auth.mode: none`. */
export type Principal = { kind: 'anonymous' } | { kind: 'key'; key: VirtualKey; team?: KeyTeam };

export interface AuthenticateDeps {
  mode: 'keys' | 'none';
  keys: KeyCache;
  /** The request's start time: expiry is judged against it. */
  nowMs: number;
}

const ANONYMOUS: Principal = { kind: 'anonymous' };

/** How long a caller should wait before retrying when the key store cannot be reached. */
const STORE_UNAVAILABLE_RETRY_AFTER_MS = 1_000;

/**
 * The key check of the synchronous gate (docs/keys-and-budgets.md). Every refusal is a 401 `invalid_api_key` in
 * the OpenAI envelope, so SDKs raise their authentication error; messages never echo the key.
 */
export async function authenticateRequest(headers: IncomingHttpHeaders, deps: AuthenticateDeps): Promise<Principal> {
  if (deps.mode === 'none') return ANONYMOUS;
  const secret = presentedSecret(headers);
  if (secret === undefined) {
    throw unauthorized('Missing API key: send "Authorization: Bearer <key>" (or "x-api-key: <key>") with a key from `switchyard keys create`.');
  }
  let key: VirtualKey | undefined;
  try {
    key = await deps.keys.authenticate(secret);
  } catch (error) {
    throw storeUnavailable(error);
  }
  if (!key) throw unauthorized('Incorrect API key provided. Check the key, or create one with `switchyard keys create`.');
  if (key.revokedAt !== null) throw unauthorized(`This API key was revoked at ${key.revokedAt}.`);
  if (key.replacedSecretExpiresAt !== undefined && Date.parse(key.replacedSecretExpiresAt) <= deps.nowMs) {
    throw unauthorized(`This API key expired at ${key.replacedSecretExpiresAt}: it was replaced by a rotation; use the new key.`);
  }
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= deps.nowMs) throw unauthorized(`This API key expired at ${key.expiresAt}.`);
  if (key.teamId === null) return { kind: 'key', key };
  const team = await deps.keys.teamOf(key).catch((error: unknown) => {
    throw storeUnavailable(error);
  });
  return team ? { kind: 'key', key, team } : { kind: 'key', key };
}

/** A store outage must not look like a bad key, or callers go debugging keys that are fine. */
function storeUnavailable(cause: unknown): GatewayError {
  return new GatewayError('The gateway cannot check API keys right now (its store is unreachable); try again shortly.', {
    status: 503,
    code: 'gateway_unavailable',
    type: 'server_error',
    retryAfterMs: STORE_UNAVAILABLE_RETRY_AFTER_MS,
    cause,
  });
}

/**
 * Whether the caller's key globs, and its team's, cover a configured route (what it is shown:
 * `GET /v1/models`, a 404's suggestions).
 */
export function mayUseRoute(principal: Principal, route: string): boolean {
  return principal.kind === 'anonymous' || (routeAllowed(principal.key.routes, route) && (principal.team === undefined || routeAllowed(principal.team.routes, route)));
}

/**
 * Refuses a key whose route globs, or whose team's, do not cover the route (its name, or
 * `connection/model`), and a key created with `direct: false` the `connection/model` form.
 */
export function authorizeRoute(principal: Principal, route: { name: string; direct: boolean }): void {
  if (principal.kind === 'anonymous') return;
  if (route.direct && !principal.key.direct) {
    throw new GatewayError(`This API key may not name a connection directly ("${route.name}"); use one of the configured models.`, {
      status: 403,
      code: 'model_not_allowed',
      type: 'invalid_request_error',
      param: 'model',
    });
  }
  if (mayUseRoute(principal, route.name)) return;
  const { team } = principal;
  const byTeam = team !== undefined && routeAllowed(principal.key.routes, route.name);
  const message = byTeam
    ? `This API key's team "${team.name}" is not allowed to use the model "${route.name}" (its route globs bound every key of the team).`
    : `This API key is not allowed to use the model "${route.name}".`;
  throw new GatewayError(message, {
    status: 403,
    code: 'model_not_allowed',
    type: 'invalid_request_error',
    param: 'model',
  });
}

/** `Authorization: Bearer` (OpenAI dialect) first, then `x-api-key` (Anthropic dialect). */
function presentedSecret(headers: IncomingHttpHeaders): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];
  if (bearer !== undefined) return bearer;
  const apiKey = headers['x-api-key'];
  const value = (Array.isArray(apiKey) ? apiKey[0] : apiKey)?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function unauthorized(message: string): GatewayError {
  return new GatewayError(message, { status: 401, code: 'invalid_api_key', type: 'invalid_request_error' });
}
