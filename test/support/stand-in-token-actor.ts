/**
 * Scoped admin tokens for tests of what each role may do, while this branch has no token store:
 * `adminTokenRow` puts a token in the store's `admin_tokens` as `POST /admin/tokens` would (its
 * hash only), and `withStandInTokenActor` (the factory of a `vi.mock` of access/admin-access.ts)
 * lets the gateway's admin guard take it. A gateway that identifies tokens itself (`tokenActor`
 * wired) is left alone, and reads the rows: the stand-in is then dead and goes.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type * as AdminAccess from '../../src/access/admin-access.js';
import type { Actor, Role } from '../../src/core/actor.js';
import type { DatabaseSchema } from '../../src/store/schema.js';

const standIns = new Map<string, Actor>();

/** A live token of `role` (in `team` for the team roles), stored hashed; its secret. */
export async function adminTokenRow(db: Kysely<DatabaseSchema>, fields: { name: string; role: Role; team?: string }): Promise<string> {
  const secret = `sy-admin-${randomBytes(32).toString('base64url')}`;
  const id = `tok_${randomBytes(8).toString('hex')}`;
  const team = fields.team ?? null;
  await db
    .insertInto('admin_tokens')
    .values({
      id,
      name: fields.name,
      token_hash: createHash('sha256').update(secret).digest('hex'),
      token_prefix: secret.slice(0, 13),
      role: fields.role,
      team_id: team,
      expires_at: null,
      created_at: new Date().toISOString(),
      revoked_at: null,
    })
    .execute();
  const global = fields.role === 'admin' || fields.role === 'auditor' ? fields.role : null;
  const grants = global === null && team !== null ? [{ team, role: fields.role as 'team_admin' | 'member' }] : [];
  standIns.set(secret, { kind: 'token', id, name: fields.name, role: fields.role, global, grants });
  return secret;
}

/** admin-access.ts with the stand-in identifying the tokens `adminTokenRow` made, where no `tokenActor` is wired. */
export function withStandInTokenActor(original: typeof AdminAccess): typeof AdminAccess {
  return {
    ...original,
    identifyAdmin: (request, deps) => original.identifyAdmin(request, deps.tokenActor ? deps : { ...deps, tokenActor: async (secret) => standIns.get(secret) }),
  };
}
