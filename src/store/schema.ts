import type { AdminTokensTable, AuditTable, TeamsTable } from './access-tables.js';

export type { AdminTokensTable, AuditTable, TeamsTable };

/**
 * The tables of the gateway's store, as kysely sees them. Booleans are stored as 0/1 integers
 * because SQLite has no boolean type and an integer column reads the same on Postgres.
 */
export interface DatabaseSchema {
  requests: RequestsTable;
  attempts: AttemptsTable;
  virtual_keys: VirtualKeysTable;
  teams: TeamsTable;
  admin_tokens: AdminTokensTable;
  audit: AuditTable;
  spend: SpendTable;
  stored_responses: StoredResponsesTable;
  canary_runs: CanaryRunsTable;
  canary_baseline_scores: CanaryBaselineScoresTable;
  request_minutes: RequestMinutesTable;
  latency_minutes: LatencyMinutesTable;
  spend_minutes: SpendMinutesTable;
  cache_minutes: CacheMinutesTable;
  outcome_minutes: OutcomeMinutesTable;
  attempt_minutes: AttemptMinutesTable;
  first_token_minutes: FirstTokenMinutesTable;
  /** `outcome_minutes` by the hour, for the range-wide breakdowns (route, connection, key, team). */
  outcome_hours: OutcomeMinutesTable;
  /** `first_token_minutes` by the hour, for the range-wide breakdowns (route, connection). */
  first_token_hours: FirstTokenMinutesTable;
  /** `outcome_minutes` of the buckets (`all`), keys and teams by 5 minutes, for buckets of 5 minutes or more. */
  outcome_five_minutes: OutcomeMinutesTable;
  /** `first_token_minutes` of deployments by 5 minutes, for their series in buckets of 5 minutes or more. */
  first_token_five_minutes: FirstTokenMinutesTable;
  latency_five_minutes: LatencyFiveMinutesTable;
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
  /** Who caused the request (`RequestOrigin`): `caller`, or the gateway's own `drill`, `canary`, `probe`. */
  origin: string;
  stream: number;
  latency_ms: number;
  record_json: string;
  /** `RequestOutcome` (core/request-outcome.ts), for the `error_kind` filter; null on records stored before it was kept. */
  outcome: string | null;
  /** The deployment that served it; null when none did (or on records stored before it was kept). */
  served_connection: string | null;
  served_model: string | null;
  /** The record's `fallback` as 0/1; null when it has none. */
  fallback: number | null;
  /** The record's `team` (the key's team id), for the team filter; null without one, and on records stored before teams. */
  team_id: string | null;
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
  /** 1 when the key may use the `connection/model` form, 0 when not. */
  direct: number;
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
  /** The team the key belongs to (`teams.id`); null: none. Never changes once set. */
  team_id: string | null;
  /** `service` (the default, and every key stored before kinds) or `exploration`. */
  kind: string;
  /** Who made an exploration key for themselves (the actor's id); null for service keys. */
  owner_id: string | null;
  /** The hash of the secret a rotation replaced, accepted until `previous_expires_at`; null: none. */
  previous_key_hash: string | null;
  /** ISO 8601: when the replaced secret stops working. */
  previous_expires_at: string | null;
}

/**
 * The ledger (docs/keys-and-budgets.md): one row per physical attempt that consumed tokens, keyed like
 * `attempts` so a replayed write stores nothing twice. Money is integer micro-dollars.
 */
export interface SpendTable {
  request_id: string;
  attempt_n: number;
  /** Null for requests without a virtual key (`auth.mode: none`, probes). */
  key_id: string | null;
  /** The key's name when the request ran, so the ledger reads without a join. */
  key_name: string | null;
  route: string | null;
  connection: string;
  provider: string;
  model: string;
  /** All prompt tokens, cached ones included. */
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  /** Of `cache_write_tokens`, those written to the 1-hour cache (priced at more than 5-minute writes). */
  cache_write_1h_tokens: number;
  cost_micros: number;
  /** 1 when the gateway counted the tokens itself (a stream that died before usage arrived). */
  estimated: number;
  /** 0 when no price was known for the model: the row costs 0 but the tokens are on record. */
  priced: number;
  /** 1 for an active health probe rather than a caller's request (kept for readers of older stores; `origin` says it too). */
  probe: number;
  /** Who caused the request (`RequestOrigin`): `caller`, or the gateway's own `drill`, `canary`, `probe`. */
  origin: string;
  /** When the request started, epoch milliseconds: budget periods are counted on it. */
  created_ms: number;
}

/**
 * One row per Responses API answer kept for `previous_response_id` and `GET /v1/responses/{id}`
 * (docs/providers.md, "The Responses API"). The items are JSON text, as the caller sent and got them.
 */
export interface StoredResponsesTable {
  /** The gateway's `resp_…` id. */
  id: string;
  /** The virtual key that created it; null under `auth.mode: none`. */
  key_id: string | null;
  /** Epoch milliseconds: retention is counted on it. */
  created_ms: number;
  /** The model that answered. */
  model: string;
  /** `connections.*.provider` of the target that answered: its encrypted reasoning is readable only there. */
  provider: string;
  connection: string;
  /** JSON array: the whole conversation's input items, the earlier turns included. */
  input_json: string;
  /** JSON object: the response object exactly as the create call returned it. */
  response_json: string;
}

/** One row per quality canary run (docs/drills-and-canaries.md), the latest few per route kept. */
export interface CanaryRunsTable {
  /** `cnr_…` */
  id: string;
  route: string;
  /** Epoch milliseconds: runs are listed and pruned newest first by it. */
  started_ms: number;
  /** JSON object: the run exactly as `GET /admin/canaries` shows it. */
  run_json: string;
}

/**
 * The runs an `auto` baseline is learned from: the first three complete runs of a route, one row
 * each, kept until the baseline is reset (deleting them), whatever happens to the runs themselves.
 */
export interface CanaryBaselineScoresTable {
  route: string;
  run_id: string;
  /** Epoch milliseconds; the three earliest rows are the baseline's. */
  started_ms: number;
  /** The run's mean score, in 0..1. */
  score: number;
}

/**
 * The dashboard's figures (`GET /admin/stats`) rolled up per minute as records are stored, so a
 * range costs its minutes, not its requests. Counted once per stored record: a replayed batch
 * adds nothing. Pruned with the records.
 */
export interface RequestMinutesTable {
  /** Epoch minutes (created_ms / 60 000, rounded down). */
  minute: number;
  requests: number;
  ok: number;
  /** Served by a non-primary target of a named route. */
  fallback: number;
  /** Served on a named route: the fallback share's denominator. */
  routed: number;
  attempts: number;
}

/** One bin of a minute's latency histogram: `count` requests whose figure rounds down to `bin` ms (two significant digits). */
export interface LatencyMinutesTable {
  minute: number;
  /** `added` (added latency of answered requests) or `first_token`. */
  metric: string;
  bin: number;
  count: number;
}

/** `latency_minutes` by 5 minutes (`minute`: the first of the five) and origin; pruned with the records. */
export interface LatencyFiveMinutesTable extends LatencyMinutesTable {
  origin: string;
}

/** The ledger's cost per minute the requests started in; kept like the ledger. */
export interface SpendMinutesTable {
  minute: number;
  cost_micros: number;
}

/** Callers' prompt tokens per minute and deployment, and how many of them the provider's cache held; pruned with the records. */
export interface CacheMinutesTable {
  minute: number;
  connection: string;
  model: string;
  /** All prompt tokens, cached ones included. */
  input_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

/**
 * The incident view's per-minute figures (`GET /admin/stats` breakdowns, breakdown-rollups.ts):
 * requests by outcome under one facet — `all`, a `route`, the serving `connection` (`detail`: its
 * provider kind), a `key`, a `team` (`name`: its id; a route's and a key's `detail`: the key's
 * team id) — and origin. Counted once per stored record; pruned with the records.
 */
export interface OutcomeMinutesTable {
  facet: string;
  origin: string;
  minute: number;
  name: string;
  detail: string;
  /** `RequestOutcome`. */
  outcome: string;
  requests: number;
  attempts: number;
  /** Requests with at least one attempt. */
  reached: number;
  fallback: number;
  routed: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_micros: number;
}

/** Attempts per minute, origin, deployment and failure kind (`ok` included); pruned with the records. */
export interface AttemptMinutesTable {
  origin: string;
  minute: number;
  connection: string;
  model: string;
  kind: string;
  attempts: number;
}

/**
 * First-token histograms (bins as `latency_minutes`) per minute and origin: of requests by `route`
 * or serving `connection` (`detail`: provider kind), of attempts by `deployment` (`name`: the
 * connection, `detail`: the model). Pruned with the records.
 */
export interface FirstTokenMinutesTable {
  facet: string;
  origin: string;
  minute: number;
  name: string;
  detail: string;
  bin: number;
  count: number;
}
