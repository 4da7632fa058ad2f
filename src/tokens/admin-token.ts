import type { Actor, Role } from '../core/actor.js';

/** A scoped admin API token (SPEC §15). Like a key, it carries neither its secret nor the hash. */
export interface AdminToken {
  /** `tok_…` */
  readonly id: string;
  readonly name: string;
  /** The secret's first characters, for telling tokens apart. */
  readonly tokenPrefix: string;
  readonly role: Role;
  /** The team a `team_admin` or `member` token acts for (its id); null for `admin` and `auditor`. */
  readonly teamId: string | null;
  /** ISO 8601; null never expires. */
  readonly expiresAt: string | null;
  /** ISO 8601. */
  readonly createdAt: string;
  /** ISO 8601; null while live. */
  readonly revokedAt: string | null;
}

/** What creating a token needs; the id, secret and times are the store's to make. */
export type NewAdminToken = Pick<AdminToken, 'name' | 'role' | 'teamId' | 'expiresAt'>;

export type AdminTokenStatus = 'active' | 'expired' | 'revoked';

/** A token as the admin API shows it: never the secret, never its hash. */
export interface AdminTokenView {
  id: string;
  name: string;
  token_prefix: string;
  role: Role;
  team: string | null;
  expires_at: string | null;
  created_at: string;
  revoked_at: string | null;
  status: AdminTokenStatus;
}

export function adminTokenView(token: AdminToken, nowMs: number): AdminTokenView {
  return {
    id: token.id,
    name: token.name,
    token_prefix: token.tokenPrefix,
    role: token.role,
    team: token.teamId,
    expires_at: token.expiresAt,
    created_at: token.createdAt,
    revoked_at: token.revokedAt,
    status: adminTokenStatus(token, nowMs),
  };
}

function adminTokenStatus(token: AdminToken, nowMs: number): AdminTokenStatus {
  if (token.revokedAt !== null) return 'revoked';
  if (token.expiresAt !== null && Date.parse(token.expiresAt) <= nowMs) return 'expired';
  return 'active';
}

/**
 * Who a live token acts as: `admin` and `auditor` across every team, a team role in its team only.
 * undefined once it is revoked or expired.
 */
export function tokenActor(token: AdminToken, nowMs: number): Actor | undefined {
  if (adminTokenStatus(token, nowMs) !== 'active') return undefined;
  const base = { kind: 'token' as const, id: token.id, name: token.name, role: token.role };
  if (token.role === 'admin' || token.role === 'auditor') return { ...base, global: token.role, grants: [] };
  return { ...base, global: null, grants: token.teamId === null ? [] : [{ team: token.teamId, role: token.role }] };
}
