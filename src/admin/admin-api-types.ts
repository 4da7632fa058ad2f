/**
 * The bodies the admin API answers with, declared once: the handlers build them against these
 * types, and the dashboard imports them (`import type`), so neither can drift from the other.
 * Type-only: nothing here exists at run time.
 */
import type { CanaryRun } from '../canaries/canary-run.js';
import type { Actor, Role, TeamGrant } from '../core/actor.js';
import type { AuditRow } from '../core/audit-entry.js';
import type { FailureKind } from '../core/failure-kind.js';
import type { RequestOrigin } from '../core/request-origin.js';
import type { RefusalClass } from '../core/request-outcome.js';
import type { RequestRecord } from '../core/request-record.js';
import type { DrillRun, DrillStep } from '../drills/drill-run.js';
import type { RehearsalDocument } from '../rehearsal/rehearsal-document.js';
import type { CreatedKeyView, KeySpendView, KeyView } from '../keys/key-view.js';
import type { TeamSpendView, TeamView } from '../teams/team-view.js';
import type { AdminTokenView } from '../tokens/admin-token.js';

export type { AdminHealthResponse, CoolingCauseView, DeploymentHealthView, FirstTokenView, ModelChangeView } from './deployment-health-view.js';
export type { AdminTokenView, AuditRow, CanaryRun, CreatedKeyView, DrillRun, DrillStep, KeySpendView, KeyView, RequestRecord, TeamSpendView, TeamView };

/** `GET /admin/me`: who the gateway takes the caller for, and the admin endpoints (`METHOD /path`) its roles let it through. */
export interface AdminMeResponse {
  kind: Actor['kind'];
  id: string;
  name: string;
  role: Role;
  global_role: Actor['global'];
  teams: readonly TeamGrant[];
  allowed: string[];
}

/** `GET /admin/requests`: newest first. `GET /admin/requests/:id` answers one `RequestRecord`. */
export interface AdminRequestsResponse {
  data: RequestRecord[];
}

/** `GET /admin/keys`: oldest first, revoked keys included. `POST /admin/keys` answers a `CreatedKeyView`. */
export interface AdminKeysResponse {
  data: KeyView[];
}

/** `GET /admin/teams`: oldest first, those the caller may see. `POST`, `GET` and `PATCH /admin/teams/:id` answer one `TeamView`. */
export interface AdminTeamsResponse {
  data: TeamView[];
}

/** `GET /admin/tokens`: oldest first, never a secret or a hash. */
export interface AdminTokensResponse {
  data: AdminTokenView[];
}

/** `GET /admin/audit`: newest first (oldest first with `after`). */
export interface AdminAuditResponse {
  data: AuditRow[];
}

/** `GET /admin/drills` and `POST /admin/drills` answer one `DrillRun`. */
export type AdminDrillResponse = DrillRun;

/** `POST /admin/rehearsals`. */
export type AdminRehearsalResponse = RehearsalDocument;

/** One route's quality canary in `GET /admin/canaries`. */
export interface CanaryRouteView {
  route: string;
  /** The configured baseline, or the learned one for `auto` (null while it is being learned). */
  baseline: number | null;
  baseline_runs: number;
  max_drop: number;
  /** The id of the run in progress here; null when none is. */
  running: string | null;
  /** Newest first. */
  latest: CanaryRun[];
}

/** `GET /admin/canaries`, in config order. */
export interface AdminCanariesResponse {
  data: CanaryRouteView[];
}

/** `POST /admin/canaries`: the runs made, one per asked route. */
export interface AdminCanaryRunsResponse {
  data: CanaryRun[];
}

/** Why the gateway answered a request itself (see core/request-outcome.ts). */
export type { RefusalClass };

/** A failure kind of an upstream attempt (docs/errors.md); `ok` never ends a failed request. */
export type UpstreamFailureKind = Exclude<FailureKind, 'ok'>;

/**
 * `GET /admin/requests?error_kind=`: a failure kind (the last attempt's kind of a request that
 * failed upstream) or `refused_<class>` (a request the gateway refused itself).
 */
export type RequestErrorKind = UpstreamFailureKind | `refused_${RefusalClass}`;

/** `GET /admin/stats?origin=` and `GET /admin/requests?origin=`: whose requests are counted or listed (one origin, or every one). */
export type OriginChoice = RequestOrigin | 'all';

/** Every request counted in exactly one place, so the figures add up to the requests. */
export interface OutcomesView {
  served_first_try: number;
  /** Served after another attempt failed, or by a target other than the route's primary. */
  served_after_failover: number;
  refused: Record<RefusalClass, number>;
  /** By the failure kind of the last attempt; only kinds that occurred are present. */
  failed_upstream: Partial<Record<FailureKind, number>>;
  /** The caller went away. */
  cancelled: number;
}

/** Every attempt's tokens (the ledger's figures): prompt tokens include the cached ones. */
export interface TokensView {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
}

/** One time bucket of `GET /admin/stats`. */
export interface StatsBucketView {
  /** ISO 8601. */
  start: string;
  requests: number;
  /** Callers' requests that ended `ok`, of all callers' requests. */
  ok_share: number | null;
  fallback_share: number | null;
  /** Callers' attempts per callers' request, refused ones included (see `attempts_per_reached_request`). */
  attempts_per_request: number | null;
  added_latency_ms: { p50: number | null; p99: number | null };
  first_token_ms: { p50: number | null };
  /** Every origin's spend, from the ledger. */
  spend_usd: number;
  outcomes: OutcomesView;
  /** Attempts per request that reached a provider at all; null when none did. */
  attempts_per_reached_request: number | null;
  tokens: TokensView;
}

/** One deployment's prompt-cache figures over the range. */
export interface DeploymentCacheView {
  deployment: string;
  connection: string;
  model: string;
  input_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  hit_ratio: number | null;
}

export interface StatsTotalsView {
  requests: number;
  outcomes: OutcomesView;
  attempts_per_reached_request: number | null;
  tokens: TokensView;
  /** The selected origin's requests' cost, from their records. */
  spend_usd: number;
}

/** The figures of one route's, or one serving connection's, requests over the range. */
export interface BreakdownFigures {
  requests: number;
  ok_share: number | null;
  /** Of the requests a named route served, the share a non-primary target served. */
  fallback_share: number | null;
  first_token_ms: { p50: number | null; p99: number | null };
  tokens: TokensView;
  spend_usd: number;
  outcomes: OutcomesView;
}

/** Requests that named no route (a direct `connection/model`) are under `route: null`. */
export interface RouteStatsView extends BreakdownFigures {
  route: string | null;
}

/** By the connection that served the request; requests nothing served are not counted here. */
export interface ProviderStatsView extends BreakdownFigures {
  connection: string;
  /** The connection's `provider` kind. */
  provider: string;
}

/** One deployment's attempts in one bucket. */
export interface DeploymentSeriesPoint {
  attempts: number;
  failures: number;
  first_token_p95_ms: number | null;
}

/** Attempts by the deployment they went to; failures exclude `ok` and `cancelled`. */
export interface DeploymentStatsView {
  /** `connection/model`. */
  deployment: string;
  connection: string;
  model: string;
  attempts: number;
  failures: number;
  failure_kinds: Partial<Record<FailureKind, number>>;
  first_token_ms: { p50: number | null; p95: number | null };
  /** One per bucket, aligned with `data`. */
  series: DeploymentSeriesPoint[];
}

export interface KeySeriesPoint {
  spend_usd: number;
  input_tokens: number;
  output_tokens: number;
}

export interface KeyStatsView {
  key_name: string;
  requests: number;
  tokens: TokensView;
  spend_usd: number;
  /** One per bucket, aligned with `data`. */
  series: KeySeriesPoint[];
}

/** A team's requests (those of its keys). */
export interface TeamStatsView {
  /** The team's id. */
  team: string;
  /** Its name; null once the team is deleted (its keys' records stay). */
  name: string | null;
  requests: number;
  tokens: TokensView;
  spend_usd: number;
  /** One per bucket, aligned with `data`. */
  series: KeySeriesPoint[];
}

export interface FailingDeploymentView {
  deployment: string;
  failures: number;
  attempts: number;
  failure_kinds: Partial<Record<FailureKind, number>>;
  /** ISO minute that began the latest run of minutes with failures (a minute with attempts and no failure ends a run). */
  since: string;
  /** ISO minute of the latest failure. */
  last_failure: string;
}

/** `GET /admin/stats` (docs/operations.md). */
export interface AdminStatsResponse {
  since: string;
  until: string;
  bucket_s: number;
  /** Whose requests the breakdowns count. */
  origin: OriginChoice;
  /** The teams (ids) the figures are narrowed to (`team=`, or a team role's own teams); null: every request's. */
  teams: string[] | null;
  data: StatsBucketView[];
  cache: DeploymentCacheView[];
  totals: StatsTotalsView;
  /** Sorted by requests, most first. */
  by_route: RouteStatsView[];
  by_provider: ProviderStatsView[];
  /** Sorted by attempts, most first. */
  by_deployment: DeploymentStatsView[];
  /** Requests without a key are left out; sorted by requests, most first. */
  by_key: KeyStatsView[];
  /** Requests of keys of no team are left out; sorted by requests, most first. */
  by_team: TeamStatsView[];
  /** At most 5, by failures, most first. */
  failing_deployments: FailingDeploymentView[];
}
