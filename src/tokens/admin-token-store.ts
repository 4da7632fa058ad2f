import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { ADMIN_TOKEN_PREFIX } from '../access/admin-access.js';
import type { AuditContext, AuditTrail } from '../audit/audit-trail.js';
import { ROLES, type Actor, type Role } from '../core/actor.js';
import { hashesMatch, hashSecret, randomSecret } from '../keys/key-secret.js';
import type { AdminTokensTable, DatabaseSchema } from '../store/schema.js';
import { adminTokenView, tokenActor, type AdminToken, type NewAdminToken } from './admin-token.js';

/** `sy-admin-` and four random characters: enough to tell tokens apart, useless to a guesser. */
const DISPLAY_PREFIX_LENGTH = ADMIN_TOKEN_PREFIX.length + 4;
/** 256 random bits in unpadded base64url, as `randomSecret` makes them. */
const TOKEN_SHAPE = /^sy-admin-[A-Za-z0-9_-]{43}$/;

export interface AdminTokenStoreOptions {
  /** Opened and migrated by the caller. */
  db: Kysely<DatabaseSchema>;
  /** Where creations and revocations made with an `AuditContext` are recorded, in their own transaction. */
  audit?: AuditTrail;
  nowMs?: () => number;
}

export interface CreatedAdminToken {
  token: AdminToken;
  /** The only copy of the secret there will ever be: the store keeps its hash. */
  secret: string;
}

type TokenRow = Selectable<AdminTokensTable>;

/**
 * Scoped admin API tokens in the store, stored as the SHA-256 of their secret like keys. A token is
 * looked up in the store on every admin request it makes, uncached: a revocation holds on every
 * replica from the next request, and admin traffic is a few requests a second at most.
 */
export class AdminTokenStore {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #audit: AuditTrail | undefined;
  readonly #nowMs: () => number;

  constructor(options: AdminTokenStoreOptions) {
    this.#db = options.db;
    this.#audit = options.audit;
    this.#nowMs = options.nowMs ?? Date.now;
  }

  /** With a context, the `token.create` row is written in the same transaction (without the secret). */
  async create(input: NewAdminToken, context?: AuditContext): Promise<CreatedAdminToken> {
    const secret = randomSecret(ADMIN_TOKEN_PREFIX);
    const row: TokenRow = {
      id: `tok_${randomBytes(8).toString('hex')}`,
      name: input.name,
      token_hash: hashSecret(secret),
      token_prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH),
      role: input.role,
      team_id: input.teamId,
      expires_at: input.expiresAt,
      created_at: new Date(this.#nowMs()).toISOString(),
      revoked_at: null,
    };
    const insert = this.#db.insertInto('admin_tokens').values(row);
    const token = toAdminToken(row);
    if (this.#audit && context) {
      await this.#audit.change(context, { action: 'token.create', target: { kind: 'token', id: token.id }, after: adminTokenView(token, this.#nowMs()) }, [insert]);
    } else {
      await insert.execute();
    }
    return { token, secret };
  }

  /** Oldest first, revoked ones included. */
  async list(): Promise<AdminToken[]> {
    const rows = await this.#db.selectFrom('admin_tokens').selectAll().orderBy('created_at').orderBy('id').execute();
    return rows.map(toAdminToken);
  }

  async get(id: string): Promise<AdminToken | undefined> {
    const row = await this.#db.selectFrom('admin_tokens').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toAdminToken(row);
  }

  /** Marks the token revoked; false when it is unknown or was revoked already. With a context, audited (`token.revoke`). */
  async revoke(id: string, context?: AuditContext): Promise<boolean> {
    const revokedAt = new Date(this.#nowMs()).toISOString();
    const update = this.#db.updateTable('admin_tokens').set({ revoked_at: revokedAt }).where('id', '=', id).where('revoked_at', 'is', null);
    if (this.#audit && context) {
      const before = await this.get(id);
      const nowMs = this.#nowMs();
      const event = {
        action: 'token.revoke' as const,
        target: { kind: 'token', id },
        before: before && adminTokenView(before, nowMs),
        after: before && adminTokenView({ ...before, revokedAt }, nowMs),
      };
      return ((await this.#audit.change(context, event, [update], { onlyIfChanged: true })).changedRows[0] ?? 0) > 0;
    }
    return (await update.executeTakeFirst()).numUpdatedRows > 0n;
  }

  /** Who a presented `sy-admin-…` secret acts as; undefined when it is unknown, revoked or expired. */
  async actorFor(secret: string): Promise<Actor | undefined> {
    if (!TOKEN_SHAPE.test(secret)) return undefined;
    const hash = hashSecret(secret);
    const row = await this.#db.selectFrom('admin_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst();
    // The index finds the row; the decision is a constant-time compare of the digests.
    if (!row || !hashesMatch(row.token_hash, hash)) return undefined;
    return tokenActor(toAdminToken(row), this.#nowMs());
  }
}

function toAdminToken(row: TokenRow): AdminToken {
  return {
    id: row.id,
    name: row.name,
    tokenPrefix: row.token_prefix,
    role: parseRole(row.id, row.role),
    teamId: row.team_id,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

function parseRole(id: string, role: string): Role {
  const known = ROLES.find((candidate) => candidate === role);
  if (known) return known;
  throw new Error(`admin token ${id}: unknown role "${role}"`);
}
