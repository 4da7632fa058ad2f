/**
 * The tables of the gateway's store, as kysely sees them. Booleans are stored as 0/1 integers
 * because SQLite has no boolean type and an integer column reads the same on Postgres.
 */
export interface DatabaseSchema {
  requests: RequestsTable;
  attempts: AttemptsTable;
  virtual_keys: VirtualKeysTable;
}

/** One row per request; `record_json` is the whole `RequestRecord`, the rest are filterable copies. */
export interface RequestsTable {
  id: string;
  /** ISO 8601, as in the record. */
  created_at: string;
  /** `created_at` as epoch milliseconds, so time filters and ordering are numeric. */
  created_ms: number;
  status: string;
  http_status: number;
  route: string | null;
  model_requested: string | null;
  key_name: string | null;
  stream: number;
  latency_ms: number;
  record_json: string;
}

/** One row per physical attempt, so attempts can be counted by kind, provider or model in SQL. */
export interface AttemptsTable {
  request_id: string;
  n: number;
  connection: string;
  provider: string;
  model: string;
  kind: string;
  http_status: number | null;
  latency_ms: number;
  committed: number;
}

/**
 * One row per virtual key. The secret itself is never stored: `key_hash` is its SHA-256 (the
 * lookup key), `key_prefix` its first characters so a human can tell keys apart in listings.
 * Money is integer micro-dollars so sums stay exact.
 */
export interface VirtualKeysTable {
  /** `key_…` */
  id: string;
  name: string;
  /** Lowercase hex SHA-256 of the secret; unique. */
  key_hash: string;
  key_prefix: string;
  /** JSON array of route globs; null allows every route. */
  routes_json: string | null;
  budget_usd_micros: number | null;
  /** `day` | `month` | `total`; set exactly when `budget_usd_micros` is. */
  budget_period: string | null;
  rpm: number | null;
  tpm: number | null;
  /** ISO 8601; null never expires. */
  expires_at: string | null;
  /** ISO 8601. */
  created_at: string;
  /** ISO 8601; null while the key is live. */
  revoked_at: string | null;
}
