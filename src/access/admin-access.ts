import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Actor } from '../core/actor.js';
import { GatewayError } from '../errors/gateway-error.js';

/** `admin.token`: the break-glass `admin`, whatever else is configured (SPEC §15). */
export const BREAK_GLASS_ACTOR: Actor = { kind: 'token', id: 'admin.token', name: 'admin.token', role: 'admin', global: 'admin', grants: [] };

/** Methods that change nothing, which need no CSRF token. */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The prefix of a scoped admin API token (`POST /admin/tokens`). */
export const ADMIN_TOKEN_PREFIX = 'sy-admin-';

export interface AdminAccessDeps {
  adminToken(): string | undefined;
  /** The actor a live `sy-admin-…` token stands for; undefined when it is unknown, revoked or expired. */
  tokenActor?(secret: string): Promise<Actor | undefined>;
  /** The person a dashboard session cookie stands for (sign-in through the identity provider); undefined without a live one. */
  sessionActor?(request: IncomingMessage): Actor | undefined;
  /** Whether a request the session cookie stands for carries that session's CSRF token (`x-csrf-token`). */
  carriesCsrfToken?(request: IncomingMessage): boolean;
  /** Whether sign-in through an identity provider is configured: the admin API is then open to its sessions and tokens. */
  signInConfigured?(): boolean;
}

/**
 * Who is asking the admin API, or a 401: `Authorization: Bearer` with `admin.token` or a scoped
 * token, or a signed-in person's session cookie (with its CSRF token on a change). With neither
 * `admin.token` nor sign-in configured only a scoped token made earlier gets in: the admin API is
 * never open. Secrets are hashed before the constant-time
 * compare so neither the content nor the length leaks.
 */
export async function identifyAdmin(request: IncomingMessage, deps: AdminAccessDeps): Promise<Actor> {
  const adminToken = deps.adminToken();
  const breakGlass = adminToken !== undefined && adminToken !== '';
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  // A scoped token is checked whatever the config says: one made before admin.token was removed still works.
  const scoped = presented?.startsWith(ADMIN_TOKEN_PREFIX) === true && deps.tokenActor !== undefined;
  if (!breakGlass && !scoped && !deps.signInConfigured?.()) throw refusal('The admin API is disabled: no admin.token is configured.');
  if (presented === undefined) {
    const person = deps.sessionActor?.(request);
    if (person) {
      // A browser sends the cookie with whatever another site's page makes it send: a change must prove it came from the dashboard.
      if (!SAFE_METHODS.has(request.method ?? '') && deps.carriesCsrfToken?.(request) !== true) throw csrfRefusal();
      return person;
    }
    throw refusal('Missing admin token: send "Authorization: Bearer <admin.token>".');
  }
  if (breakGlass && timingSafeEqual(sha256(presented), sha256(adminToken))) return BREAK_GLASS_ACTOR;
  if (presented.startsWith(ADMIN_TOKEN_PREFIX)) {
    const actor = await deps.tokenActor?.(presented);
    if (actor) return actor;
    throw refusal('Invalid admin token: unknown, revoked or expired.');
  }
  throw refusal('Invalid admin token.');
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The envelope OpenAI uses for a refused key, so SDKs raise their authentication error. */
function refusal(message: string): GatewayError {
  return new GatewayError(message, { status: 401, code: 'invalid_api_key', type: 'invalid_request_error' });
}

/** 403 for a change made with the session cookie that does not carry the session's CSRF token. */
export function csrfRefusal(): GatewayError {
  return new GatewayError(
    'Missing or wrong CSRF token: a change made with the sign-in cookie must carry the x-csrf-token header with the value of the switchyard_csrf cookie.',
    { status: 403, code: 'csrf_token_invalid', type: 'permission_error' },
  );
}
