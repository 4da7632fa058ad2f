/** The tables of SPEC §15 (teams, scoped admin tokens, the audit trail), part of `DatabaseSchema` (schema.ts). */

/**
 * One row per team (SPEC §15). Its budget and limits apply across its keys besides each key's own;
 * its route globs bound its keys'. Money is integer micro-dollars, as on keys.
 */
export interface TeamsTable {
  /** `team_…` */
  id: string;
  /** Unique: a team is named by its id or its name on tokens and in `admin.oidc.roles`. */
  name: string;
  budget_usd_micros: number | null;
  budget_period: string | null;
  rpm: number | null;
  tpm: number | null;
  /** JSON array of route globs; null allows every route. */
  routes_json: string | null;
  /** JSON object: the exploration policy `{max_ttl_s, limits?, budget?}` as the API takes it; null: the defaults. */
  exploration_json: string | null;
  /** ISO 8601. */
  created_at: string;
  /** ISO 8601. */
  updated_at: string;
}

/** Scoped admin API tokens (`sy-admin-…`), stored only as the SHA-256 of the secret, like keys. */
export interface AdminTokensTable {
  /** `tok_…` */
  id: string;
  name: string;
  /** Unique. */
  token_hash: string;
  token_prefix: string;
  /** `admin` | `auditor` | `team_admin` | `member`. */
  role: string;
  /** `teams.id` for `team_admin` and `member`; null otherwise. */
  team_id: string | null;
  /** ISO 8601; null never expires. */
  expires_at: string | null;
  /** ISO 8601. */
  created_at: string;
  /** ISO 8601; null while live. */
  revoked_at: string | null;
}

/**
 * The audit trail (SPEC §15): one row per change and sign-in, appended in the change's own
 * transaction, each chained to the one before by `hash = sha256(prev_hash + canonical JSON of the
 * row)` (audit/audit-chain.ts). JSON columns are text, as the API shows them.
 */
export interface AuditTable {
  /** Increasing, gapless while nothing is pruned. */
  seq: number;
  /** `aud_…`: the row's own id, so a row replayed from the spill is stored once. */
  id: string;
  /** ISO 8601: when the change happened (a spilled row keeps its time). */
  at: string;
  /** Epoch ms of `at`, for time filters and retention. */
  at_ms: number;
  /** JSON `{kind, id, name, role}`. */
  actor_json: string;
  /** `actor.id`, for the filter. */
  actor_id: string;
  action: string;
  /** JSON `{kind, id}`. */
  target_json: string;
  /** `target.id`, for the filter. */
  target_id: string | null;
  before_json: string | null;
  after_json: string | null;
  request_id: string | null;
  source_ip: string | null;
  prev_hash: string;
  hash: string;
}
