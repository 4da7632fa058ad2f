import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable, UpdateQueryBuilder, UpdateResult, Updateable } from 'kysely';
import type { DatabaseSchema, VirtualKeysTable } from '../store/schema.js';
import type { AuditContext, AuditEvent, AuditTrail } from '../audit/audit-trail.js';
import { keyView } from './key-view.js';
import { generateSecret, hashesMatch, hashSecret, keyPrefix } from './key-secret.js';
import { BUDGET_PERIODS, type BudgetPeriod, type KeyChanges, type NewKey, type VirtualKey } from './virtual-key.js';

export interface KeyStoreOptions {
  /** Opened and migrated by the caller. */
  db: Kysely<DatabaseSchema>;
  nowMs?: () => number;
  /** Where changes made with an `AuditContext` are recorded, in the change's own transaction. */
  audit?: AuditTrail;
}

export interface CreatedKey {
  key: VirtualKey;
  /** The only copy of the secret there will ever be: the store keeps its hash. */
  secret: string;
}

/** A rotation: the key under its new secret (shown once), and when the replaced secret stops working. */
export interface RotatedKey extends CreatedKey {
  previousExpiresAt: string;
}

/**
 * How a rotation or a change ended. `unknown`: no such key; `revoked`: a revoked key changes no
 * more; `raced`: another change landed between reading the key and writing it (nothing was written).
 */
export type KeyChangeOutcome<Changed> = { outcome: 'done'; changed: Changed } | { outcome: 'unknown' | 'revoked' | 'raced' };

type KeyRow = Selectable<VirtualKeysTable>;

/** Virtual keys in the store: created, listed, revoked, and found by the hash of a secret. */
export class KeyStore {
  private readonly db: Kysely<DatabaseSchema>;
  private readonly nowMs: () => number;
  private readonly audit: AuditTrail | undefined;

  constructor(options: KeyStoreOptions) {
    this.db = options.db;
    this.nowMs = options.nowMs ?? Date.now;
    this.audit = options.audit;
  }

  /** With a context, the `key.create` row is written in the same transaction (without the secret, which is never stored). */
  async create(input: NewKey, context?: AuditContext): Promise<CreatedKey> {
    const secret = generateSecret();
    const row: KeyRow = {
      id: newKeyId(),
      name: input.name,
      key_hash: hashSecret(secret),
      key_prefix: keyPrefix(secret),
      routes_json: input.routes === null ? null : JSON.stringify(input.routes),
      direct: input.direct ? 1 : 0,
      budget_usd_micros: input.budget?.usdMicros ?? null,
      budget_period: input.budget?.period ?? null,
      rpm: input.rpm,
      tpm: input.tpm,
      expires_at: input.expiresAt,
      created_at: new Date(this.nowMs()).toISOString(),
      revoked_at: null,
      team_id: input.teamId,
      kind: input.kind,
      owner_id: input.ownerId,
      previous_key_hash: null,
      previous_expires_at: null,
    };
    const insert = this.db.insertInto('virtual_keys').values(row);
    const key = toVirtualKey(row);
    if (this.audit && context) {
      await this.audit.change(context, { action: 'key.create', target: { kind: 'key', id: key.id }, after: keyView(key, this.nowMs()) }, [insert]);
    } else {
      await insert.execute();
    }
    return { key, secret };
  }

  /** Oldest first, revoked keys included (they stay listed so their history stays explained). */
  async list(): Promise<VirtualKey[]> {
    const rows = await this.db.selectFrom('virtual_keys').selectAll().orderBy('created_at').orderBy('id').execute();
    return rows.map(toVirtualKey);
  }

  async get(id: string): Promise<VirtualKey | undefined> {
    const row = await this.db.selectFrom('virtual_keys').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toVirtualKey(row) : undefined;
  }

  /** Marks the key revoked; false when it is unknown or was revoked already. With a context, a revocation is audited (`key.revoke`). */
  async revoke(id: string, context?: AuditContext): Promise<boolean> {
    const revokedAt = new Date(this.nowMs()).toISOString();
    const update = this.db.updateTable('virtual_keys').set({ revoked_at: revokedAt }).where('id', '=', id).where('revoked_at', 'is', null);
    if (this.audit && context) {
      const before = await this.get(id);
      const event = { action: 'key.revoke' as const, target: { kind: 'key', id }, before: before && keyView(before, this.nowMs()), after: before && keyView({ ...before, revokedAt }, this.nowMs()) };
      const result = await this.audit.change(context, event, [update], { onlyIfChanged: true });
      return (result.changedRows[0] ?? 0) > 0;
    }
    const result = await update.executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * A new secret for the key; the one it replaces keeps working until `overlapS` seconds from now
   * (0: it stops at once). The secret before that one, if any, stops at once. With a context, the
   * rotation is audited (`key.rotate`, the views before and after: never a secret or a hash).
   */
  async rotate(id: string, overlapS: number, context?: AuditContext): Promise<KeyChangeOutcome<RotatedKey>> {
    const row = await this.#row(id);
    if (!row || row.revoked_at !== null) return { outcome: row ? 'revoked' : 'unknown' };
    const secret = generateSecret();
    const previousExpiresAt = new Date(this.nowMs() + overlapS * 1000).toISOString();
    const changes = { key_hash: hashSecret(secret), key_prefix: keyPrefix(secret), previous_key_hash: row.key_hash, previous_expires_at: previousExpiresAt };
    const before = toVirtualKey(row);
    const key = toVirtualKey({ ...row, ...changes });
    const event = {
      action: 'key.rotate' as const,
      target: { kind: 'key', id },
      before: { ...keyView(before, this.nowMs()), previous_expires_at: row.previous_expires_at },
      after: { ...keyView(key, this.nowMs()), previous_expires_at: previousExpiresAt },
    };
    const outcome = await this.#changeRow(row, changes, context, event);
    return outcome === 'done' ? { outcome, changed: { key, secret, previousExpiresAt } } : { outcome };
  }

  /** Changes what `changes` names (null clears). With a context, the change is audited (`key.update`, before and after). */
  async update(id: string, changes: KeyChanges, context?: AuditContext): Promise<KeyChangeOutcome<VirtualKey>> {
    const row = await this.#row(id);
    if (!row || row.revoked_at !== null) return { outcome: row ? 'revoked' : 'unknown' };
    const columns = changedColumns(changes);
    const before = toVirtualKey(row);
    const key = toVirtualKey({ ...row, ...columns });
    const event = { action: 'key.update' as const, target: { kind: 'key', id }, before: keyView(before, this.nowMs()), after: keyView(key, this.nowMs()) };
    const outcome = await this.#changeRow(row, columns, context, event);
    return outcome === 'done' ? { outcome, changed: key } : { outcome };
  }

  /**
   * The key whose secret hashes to `hash`, revoked and expired ones included (the caller says why
   * it is refused); or the key whose secret a rotation replaced, marked with when that secret stops.
   */
  async findByHash(hash: string): Promise<VirtualKey | undefined> {
    const row = await this.db.selectFrom('virtual_keys').selectAll().where('key_hash', '=', hash).executeTakeFirst();
    // The index finds the row; the decision is a constant-time compare of the digests,
    // so it never rests on how a particular database compares text.
    if (row && hashesMatch(row.key_hash, hash)) return toVirtualKey(row);
    const rotated = await this.db.selectFrom('virtual_keys').selectAll().where('previous_key_hash', '=', hash).executeTakeFirst();
    if (!rotated?.previous_key_hash || rotated.previous_expires_at === null || !hashesMatch(rotated.previous_key_hash, hash)) return undefined;
    return { ...toVirtualKey(rotated), replacedSecretExpiresAt: rotated.previous_expires_at };
  }

  #row(id: string): Promise<KeyRow | undefined> {
    return this.db.selectFrom('virtual_keys').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Writes `columns` only if the row is still as it was read, so the audit row's `before` is what
   * was replaced: a change that lands in between makes this one `raced` (or `revoked`), unwritten.
   */
  async #changeRow(read: KeyRow, columns: Updateable<VirtualKeysTable>, context: AuditContext | undefined, event: AuditEvent): Promise<'done' | 'revoked' | 'raced'> {
    const update = unchangedSince(this.db.updateTable('virtual_keys').set(columns), read);
    let changedRows: number;
    if (this.audit && context) {
      changedRows = (await this.audit.change(context, event, [update], { onlyIfChanged: true })).changedRows[0] ?? 0;
    } else {
      changedRows = Number((await update.executeTakeFirst()).numUpdatedRows);
    }
    if (changedRows > 0) return 'done';
    return (await this.#row(read.id))?.revoked_at === null ? 'raced' : 'revoked';
  }
}

type KeyUpdate = UpdateQueryBuilder<DatabaseSchema, 'virtual_keys', 'virtual_keys', UpdateResult>;

/** Every column a rotation or a change reads before it writes, as it was read (null compared as null). */
function unchangedSince(update: KeyUpdate, read: KeyRow): KeyUpdate {
  const guarded = ['key_hash', 'name', 'routes_json', 'direct', 'budget_usd_micros', 'budget_period', 'rpm', 'tpm', 'expires_at', 'revoked_at', 'previous_key_hash'] as const;
  return guarded.reduce<KeyUpdate>(
    (query, column) => (read[column] === null ? query.where(column, 'is', null) : query.where(column, '=', read[column])),
    update.where('id', '=', read.id),
  );
}

/** The stored form of a change: only the columns it names. */
function changedColumns(changes: KeyChanges): Updateable<VirtualKeysTable> {
  const columns: Updateable<VirtualKeysTable> = {};
  if (changes.name !== undefined) columns.name = changes.name;
  if (changes.routes !== undefined) columns.routes_json = changes.routes === null ? null : JSON.stringify(changes.routes);
  if (changes.direct !== undefined) columns.direct = changes.direct ? 1 : 0;
  if (changes.budget !== undefined) {
    columns.budget_usd_micros = changes.budget?.usdMicros ?? null;
    columns.budget_period = changes.budget?.period ?? null;
  }
  if (changes.rpm !== undefined) columns.rpm = changes.rpm;
  if (changes.tpm !== undefined) columns.tpm = changes.tpm;
  if (changes.expiresAt !== undefined) columns.expires_at = changes.expiresAt;
  return columns;
}

/** `key_` + 64 random bits in hex: unguessable enough that ids in URLs and logs reveal nothing. */
function newKeyId(): string {
  return `key_${randomBytes(8).toString('hex')}`;
}

function toVirtualKey(row: KeyRow): VirtualKey {
  return {
    id: row.id,
    name: row.name,
    keyPrefix: row.key_prefix,
    routes: row.routes_json === null ? null : parseRoutes(row.id, row.routes_json),
    direct: row.direct !== 0,
    budget:
      row.budget_usd_micros === null || row.budget_period === null
        ? null
        : { usdMicros: row.budget_usd_micros, period: parsePeriod(row.id, row.budget_period) },
    rpm: row.rpm,
    tpm: row.tpm,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    teamId: row.team_id,
    kind: row.kind === 'exploration' ? 'exploration' : 'service',
    ownerId: row.owner_id,
  };
}

function parseRoutes(id: string, json: string): string[] {
  const parsed: unknown = JSON.parse(json);
  if (Array.isArray(parsed) && parsed.every((item): item is string => typeof item === 'string')) return parsed;
  throw new Error(`virtual key ${id}: routes_json is not an array of strings`);
}

function parsePeriod(id: string, period: string): BudgetPeriod {
  const known = BUDGET_PERIODS.find((candidate) => candidate === period);
  if (known) return known;
  throw new Error(`virtual key ${id}: unknown budget_period "${period}"`);
}
