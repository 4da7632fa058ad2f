import type { Kysely } from 'kysely';
import type { Principal } from '../keys/authenticate.js';
import type { DatabaseSchema } from '../store/schema.js';
import { storeCall } from '../store/store-call.js';

/** A Responses API answer as the store keeps it. */
export interface StoredResponse {
  id: string;
  /** The virtual key that created it; null under `auth.mode: none`. */
  keyId: string | null;
  createdMs: number;
  model: string;
  /** `connections.*.provider` of the target that answered. */
  provider: string;
  connection: string;
  /** The whole conversation's input items, the earlier turns included. */
  input: readonly unknown[];
  /** The response object as the create call returned it. */
  response: Record<string, unknown>;
}

/**
 * Whose stored responses a caller may read: a virtual key sees only its own; `null` (under
 * `auth.mode: none`, where every caller is the same one) sees them all.
 */
export type ResponseScope = { keyId: string | null };

export const DAY_MS = 86_400_000;

/** A virtual key sees the responses it created; under `auth.mode: none` every caller is one scope. */
export function responseScopeOf(principal: Principal): ResponseScope {
  return { keyId: principal.kind === 'key' ? principal.key.id : null };
}

/**
 * The stored Responses API answers, in the store (SQLite or PostgreSQL) rather than in memory, so
 * a next turn sent to another replica finds its previous one. Every call is one statement,
 * bounded as every store call is (1 s); `find` and `remove` fail as a 503 `gateway_unavailable`
 * when the store cannot answer, `save` rejects and lets its caller decide.
 */
export class StoredResponses {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  async save(stored: StoredResponse): Promise<void> {
    await this.#db
      .insertInto('stored_responses')
      .values({
        id: stored.id,
        key_id: stored.keyId,
        created_ms: stored.createdMs,
        model: stored.model,
        provider: stored.provider,
        connection: stored.connection,
        input_json: JSON.stringify(stored.input),
        response_json: JSON.stringify(stored.response),
      })
      // Ids are the gateway's and unique; a write repeated after its answer was lost stores once.
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
  }

  /** The stored response with this id in the caller's scope, unless it is older than `notBeforeMs`. */
  async find(id: string, scope: ResponseScope, notBeforeMs: number): Promise<StoredResponse | undefined> {
    let query = this.#db.selectFrom('stored_responses').selectAll().where('id', '=', id).where('created_ms', '>=', notBeforeMs);
    if (scope.keyId !== null) query = query.where('key_id', '=', scope.keyId);
    const row = await storeCall(query.executeTakeFirst());
    if (!row) return undefined;
    return {
      id: row.id,
      keyId: row.key_id,
      createdMs: Number(row.created_ms),
      model: row.model,
      provider: row.provider,
      connection: row.connection,
      input: JSON.parse(row.input_json) as unknown[],
      response: JSON.parse(row.response_json) as Record<string, unknown>,
    };
  }

  /** Deletes the stored response with this id in the caller's scope; resolves with whether there was one. */
  async remove(id: string, scope: ResponseScope): Promise<boolean> {
    let query = this.#db.deleteFrom('stored_responses').where('id', '=', id);
    if (scope.keyId !== null) query = query.where('key_id', '=', scope.keyId);
    const deleted = await storeCall(query.executeTakeFirst());
    return Number(deleted.numDeletedRows) > 0;
  }

  /**
   * Deletes up to `limit` of the oldest stored responses created before `olderThanMs`, in one
   * statement (the store thread runs no transactions); resolves with how many went.
   */
  async prune(options: { olderThanMs: number; limit: number }): Promise<number> {
    const oldest = this.#db.selectFrom('stored_responses').select('id').where('created_ms', '<', options.olderThanMs).orderBy('created_ms').limit(options.limit);
    const deleted = await this.#db.deleteFrom('stored_responses').where('id', 'in', oldest).executeTakeFirst();
    return Number(deleted.numDeletedRows);
  }
}
