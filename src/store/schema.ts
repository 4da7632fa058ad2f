/**
 * The tables of the gateway's store, as kysely sees them. Booleans are stored as 0/1 integers
 * because SQLite has no boolean type and an integer column reads the same on Postgres.
 */
export interface DatabaseSchema {
  requests: RequestsTable;
  attempts: AttemptsTable;
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
